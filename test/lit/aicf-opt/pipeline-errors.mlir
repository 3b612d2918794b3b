// RUN: not aicf-opt %s -p 'aicf-fuse{explain=true' 2>&1 | filecheck %s --check-prefixes=BRACE,ALL
// RUN: not aicf-opt %s --pass-pipeline='builtin.module(aicf-infer-shapes' 2>&1 | filecheck %s --check-prefixes=PAREN,ALL
// RUN: not aicf-opt %s --pass-pipeline='func.func(cse)' 2>&1 | filecheck %s --check-prefixes=ANCHOR,ALL
// RUN: not aicf-opt %s --pass-pipeline='builtin.module(gpu.module(cse))' 2>&1 | filecheck %s --check-prefixes=NEST,ALL
// RUN: not aicf-opt %s -p 'cse,,dce' 2>&1 | filecheck %s --check-prefixes=EMPTY,ALL
// RUN: not aicf-opt %s -p 'aicf-fuse{max-ops=1 2}' 2>&1 | filecheck %s --check-prefixes=XDSL,ALL
// RUN: not aicf-opt %s -p 'aicf-fuse{bogus=1}' 2>&1 | filecheck %s --check-prefixes=OPTION,ALL
// RUN: not aicf-opt %s -p 'aicf-plan{cores=many}' 2>&1 | filecheck %s --check-prefixes=TYPE,ALL
// RUN: not aicf-opt %s -p 'aicf-plan{top=true}' 2>&1 | filecheck %s --check-prefixes=TYPE-BOOL,ALL
// RUN: not aicf-opt %s -p 'aicf-plan{top=1,2}' 2>&1 | filecheck %s --check-prefixes=TYPE-LIST,ALL
// RUN: not aicf-opt %s -p 'aicf-plan{min-speedup=nan}' 2>&1 | filecheck %s --check-prefixes=TYPE-FLOAT,ALL
// RUN: not aicf-opt %s -p 'aicf-fuse{max-ops}' 2>&1 | filecheck %s --check-prefixes=NO-VALUE,ALL
// RUN: not aicf-opt %s -p 'aicf-plan{force}' 2>&1 | filecheck %s --check-prefixes=NO-VALUE-STR,ALL
// RUN: aicf-opt %s -p 'aicf-plan{target=cpu min-speedup=2 gate-time-limit=1e3}'
// RUN: not aicf-opt %s -p 'aicf-fuse{max-ops=0}' 2>&1 | filecheck %s --check-prefixes=RANGE,ALL
// RUN: not aicf-opt %s -p 'no-such-pass' 2>&1 | filecheck %s --check-prefixes=UNKNOWN,ALL
// RUN: not aicf-opt %s -p cse --pass-pipeline='builtin.module(cse)' 2>&1 | filecheck %s --check-prefixes=BOTH,ALL
// RUN: not aicf-opt %s -p 'aicf-fuse{explain=true explain=false}' 2>&1 | filecheck %s --check-prefixes=TWICE,ALL
// RUN: not aicf-opt %s --pass-pipeline='builtin.module(cse,aicf-fuse{explain=true explain=false})' 2>&1 | filecheck %s --check-prefixes=TWICE-NESTED,ALL
// RUN: not aicf-opt %s -p 'aicf-fuse{max-ops=3 max_ops=4}' 2>&1 | filecheck %s --check-prefixes=TWICE-SPELLED,ALL
// Every malformed pipeline, in either spelling, is one line naming the pipeline and
// the column (or the pass and option), with exit code 1 and no traceback.

// BRACE: error: malformed pass pipeline 'aicf-fuse{explain=true' at column 10: '{' of the options of 'aicf-fuse' is never closed
// BRACE-EMPTY:
// PAREN: error: malformed pass pipeline 'builtin.module(aicf-infer-shapes' at column 33: expected ',' or ')'
// PAREN-EMPTY:
// ANCHOR: error: malformed pass pipeline 'func.func(cse)' at column 1: a nested pipeline starts with 'builtin.module(', not 'func.func('
// NEST: at column 16: aicf-opt nests passes on 'func.func' only inside 'builtin.module', not on 'gpu.module'
// EMPTY: error: malformed pass pipeline 'cse,,dce' at column 5: expected a pass name, found ','
// XDSL: error: malformed pass pipeline 'aicf-fuse{max-ops=1 2}' at column 21: Expected argument name here
// XDSL-EMPTY:
// OPTION: error: pass 'aicf-fuse': Provided arguments ["bogus"] not found in expected arguments
// An option of the wrong type is named, with the type it takes (xDSL's message was
// "Incompatible types: given ('many',), expected <class 'int'>"); an integer is a
// float option's value, as in mlir-opt (min-speedup=2 was refused that way).
// TYPE: error: pass 'aicf-plan': option 'cores' takes one value, an integer, got 'many'
// TYPE-BOOL: error: pass 'aicf-plan': option 'top' takes one value, an integer, got True
// TYPE-LIST: error: pass 'aicf-plan': option 'top' takes one value, an integer, got 1, 2
// TYPE-FLOAT: error: pass 'aicf-plan': option 'min-speedup' takes one value, a number, got 'nan'
// An option with no value is an error (xDSL ran aicf-fuse{max-ops} with its default
// and refused aicf-plan{force} as "Incompatible types: given ()"), but a bool option
// alone is true, as in mlir-opt (aicf-fuse/explain.mlir).
// NO-VALUE: error: pass 'aicf-fuse': option 'max-ops' takes one value, an integer, got none
// NO-VALUE-STR: error: pass 'aicf-plan': option 'force' takes one value, a string, got none
// RANGE: error: pass 'aicf-fuse': max-ops must be at least 1, got 0
// UNKNOWN: error: unknown pass 'no-such-pass' (aicf-opt --help lists the passes)
// BOTH: error: give the passes with -p or with --pass-pipeline, not both
// An option given twice is an error (xDSL kept the last value without a word); `-`
// and `_` are one name, as in the option's reading.
// TWICE: error: malformed pass pipeline 'aicf-fuse{explain=true explain=false}' at column 24: option 'explain' of 'aicf-fuse' is given twice
// TWICE-EMPTY:
// TWICE-NESTED: error: malformed pass pipeline 'builtin.module(cse,aicf-fuse{explain=true explain=false})' at column 43: option 'explain' of 'aicf-fuse' is given twice
// TWICE-SPELLED: error: malformed pass pipeline 'aicf-fuse{max-ops=3 max_ops=4}' at column 21: option 'max_ops' of 'aicf-fuse' is given twice

// ALL-NOT: Traceback
