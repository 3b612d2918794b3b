// RUN: env COLUMNS=100 aicf-opt --help | filecheck %s
// `aicf-opt --help` lists aicf's passes first, each with a one-line description and
// its options, then xDSL's passes, then the output targets.

// CHECK: --pass-pipeline
// CHECK: aicf passes:
// CHECK-NEXT: aicf-cleanup-reshapes {{ +}}Fold reshapes
// CHECK: aicf-fuse {{ +}}Group `aicf_tensor` ops
// CHECK: options: max-inputs: int | None = none, max-ops: int | None
// CHECK: aicf-infer-shapes {{ +}}Fill unranked
// CHECK: aicf-plan {{ +}}Write a schedule attribute
// CHECK: options: target: str = auto, force: str = "", explain: bool
// CHECK: aicf-tile
// CHECK: xDSL passes
// CHECK: canonicalize,
// CHECK: cse,
// CHECK: dce,
// CHECK: targets (-t): {{.*}}mlir, {{.*}}c, cuda, ptx
