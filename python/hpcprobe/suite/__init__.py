"""The run/suite layer: `hpcprobe run` (command.py) and what it plans and writes. A suite
is a list of launches (step.py's SuiteStep; the suites of suites.py and each family's
`Family.suites`), the main job's among them (main_job.py); `run --repeat K` runs them in
rounds (repeat.py); run.json says what became of each (manifest.py); the headline is one
validated figure per line (headline.py). Families import step.py and headline.py, and the
run layer finds the families through their registry (hpcprobe.families), never by name.

Nothing is imported here, so that a family importing hpcprobe.suite.step does not import
the suites, which import the family registry."""
