// RUN: aicf-opt %s -p 'aicf-plan{target=cpu}' -t c | filecheck %s

// C has no approximate division: a division a user flagged fastmath<fast> (which
// includes `afn`) prints as the correctly rounded one, as does a flagged add.
// CHECK: = x0 / x1;
// CHECK: = {{.*}} + {{.*}};
func.func @main(%x: memref<1024xf32>, %y: memref<1024xf32>, %out0: memref<1024xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1024] iterators = [parallel]
    ins(%x, %y : memref<1024xf32>, memref<1024xf32>)
    outs(%out0 : memref<1024xf32>)
    maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32, %b: f32):
    %q = arith.divf %a, %b fastmath<fast> : f32
    %s = arith.addf %q, %a fastmath<fast> : f32
    aicf_loop.yield %s : f32
  }
  func.return
}
