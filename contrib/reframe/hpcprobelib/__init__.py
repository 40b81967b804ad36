'''ReFrame tests for hpcprobe: a base class per benchmark family (docs/reframe.md).'''
