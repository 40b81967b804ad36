'''hpcprobe's JSON Lines records as ReFrame deferred expressions.

The records are described in docs/results.md and schema/result-v1.json. Values in a
record are SI base units (s, B/s, updates/s, flop/s); the tests scale them for display.
Nothing here imports hpcprobe: ReFrame may run from another Python than hpcprobe's.
'''

import json

import reframe.utility.sanity as sn
from reframe.core.exceptions import SanityError


@sn.deferrable
def read_records(path):
    '''Every record of the JSON Lines file ``path``; none if it was never written.'''
    try:
        with open(path, encoding='utf-8') as stream:
            lines = stream.read().splitlines()
    except FileNotFoundError:
        return []

    return [json.loads(line) for line in lines if line.strip()]


@sn.deferrable
def records_of(records, benchmark, variant):
    '''The records of one benchmark and variant, in the order they were written.'''
    return [r for r in records
            if r.get('benchmark') == benchmark and r.get('variant') == variant]


def passed(record):
    '''True when the record's verifier ran and passed (``skipped`` is not a pass).'''
    validation = record.get('validation') or {}
    return record.get('status') == 'ok' and validation.get('verdict') == 'passed'


def verdict_phrase(record):
    '''One phrase saying what the record's validation found, for a sanity message.'''
    validation = record.get('validation') or {}
    unit = validation.get('error_unit', '')
    phrase = (f"{record.get('benchmark')} {record.get('variant')}: "
              f"status {record.get('status')}, verdict {validation.get('verdict')} "
              f"(error {validation.get('error')} {unit}, "
              f"tolerance {validation.get('tolerance')} {unit})")
    detail = validation.get('detail')
    return f'{phrase}: {detail}' if detail else phrase


@sn.deferrable
def unvalidated(records):
    '''What failed validation, one phrase per record joined by "; "; empty if none.'''
    return '; '.join(verdict_phrase(r) for r in records if not passed(r))


def _last(records):
    if not records:
        raise SanityError('no hpcprobe record to read a performance figure from')

    return records[-1]


def _metric(record, name):
    for metric in record.get('metrics', []):
        if metric.get('name') == name:
            return metric

    raise SanityError(f"the {record.get('benchmark')} record has no metric {name!r}")


def _series(record, name):
    for series in record.get('series') or []:
        if series.get('name') == name:
            return series

    raise SanityError(f"the {record.get('benchmark')} record has no series {name!r}")


def series_names(record):
    '''The names of the record's curves.'''
    return [series.get('name') for series in record.get('series') or []]


@sn.deferrable
def headline(records):
    '''The last record's headline value (``value.value``), in its SI unit.'''
    return _last(records)['value']['value']


@sn.deferrable
def best_sample(records, metric):
    '''The largest timed sample of a metric of the last record (warm-ups are apart).'''
    return max(_metric(_last(records), metric)['samples'])


@sn.deferrable
def series_mean(records, name):
    '''The mean of a curve's points in the last record.'''
    ys = _series(_last(records), name)['y']
    return sum(ys) / len(ys)


@sn.deferrable
def series_at_x(records, name, x):
    '''A curve's point at ``x`` (a message size, ...) in the last record.'''
    series = _series(_last(records), name)
    for point_x, point_y in zip(series['x'], series['y']):
        if point_x == x:
            return point_y

    raise SanityError(f'the series {name!r} has no point at {x}')


@sn.deferrable
def smallest_x(records, name):
    '''The smallest x of a curve in the last record.'''
    return min(_series(_last(records), name)['x'])


@sn.deferrable
def largest_x(records, name):
    '''The largest x of a curve in the last record.'''
    return max(_series(_last(records), name)['x'])
