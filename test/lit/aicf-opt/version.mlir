// RUN: aicf-opt --version | filecheck %s --check-prefix=OPT
// RUN: aicf-run --version | filecheck %s --check-prefix=RUNVER
// RUN: aicf-run --help | filecheck %s --check-prefix=RUNHELP
// Both tools name aicf's version (aicf.__version__, the package's) and xDSL's.

// OPT: aicf-opt {{[0-9]+\.[0-9]+\.[0-9]+[^ ]*}} (xdsl {{[0-9.]+}})
// RUNVER: aicf-run {{[0-9]+\.[0-9]+\.[0-9]+[^ ]*}} (xdsl {{[0-9.]+}})
// RUNHELP: usage: aicf-run
// RUNHELP: run a program on random inputs and check it against the NumPy reference
// RUNHELP: --version
