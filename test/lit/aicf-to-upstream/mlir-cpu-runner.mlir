// REQUIRES: mlir-16
// RUN: aicf-opt %s -p aicf-to-upstream --print-no-properties | %mlir-opt-16 %upstream-to-llvm \
// RUN:   | %mlir-cpu-runner-16 -e main -entry-point-result=void -shared-libs=%mlir-c-runner-utils,%mlir-runner-utils \
// RUN:   | filecheck %s
// Upstream's runner computes aicf's semantics: integer division by 0 and -1, integer
// powers (negative exponents too), a gather's index wrapped and clamped, a sum.
// (Floats against NumPy, on random data: test/python/test_upstream_mlir.py.)

"memref.global"() {sym_name = "num", sym_visibility = "private", type = memref<6xi32>, initial_value = dense<[7, -7, 5, -2147483648, 3, -1]> : tensor<6xi32>, constant} : () -> ()
"memref.global"() {sym_name = "den", sym_visibility = "private", type = memref<6xi32>, initial_value = dense<[2, 2, 0, -1, -2, 3]> : tensor<6xi32>, constant} : () -> ()
"memref.global"() {sym_name = "rows", sym_visibility = "private", type = memref<4x2xf32>, initial_value = dense<[[0.5, 1.0], [2.0, 4.0], [8.0, 16.0], [32.0, 64.0]]> : tensor<4x2xf32>, constant} : () -> ()
"memref.global"() {sym_name = "ids", sym_visibility = "private", type = memref<5xi64>, initial_value = dense<[0, -1, 9, -9, 2]> : tensor<5xi64>, constant} : () -> ()

func.func @int_ops(%a: memref<6xi32>, %b: memref<6xi32>, %q: memref<6xi32>, %r: memref<6xi32>, %p: memref<6xi32>) attributes {aicf.num_outputs = 3 : i64} {
  aicf_loop.nest domain = [6] iterators = [parallel]
      ins(%a, %b : memref<6xi32>, memref<6xi32>) outs(%q, %r, %p : memref<6xi32>, memref<6xi32>, memref<6xi32>)
      maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%x: i32, %y: i32):
    %0 = arith.divsi %x, %y : i32
    %1 = arith.remsi %x, %y : i32
    %2 = math.ipowi %x, %y : i32
    aicf_loop.yield %0, %1, %2 : i32, i32, i32
  }
  func.return
}

func.func @take_and_sum(%t: memref<4x2xf32>, %ids: memref<5xi64>, %g: memref<5x2xf32>, %s: memref<2xf32>) attributes {aicf.num_outputs = 2 : i64} {
  aicf_loop.gather axis = 0 ins(%t, %ids : memref<4x2xf32>, memref<5xi64>) outs(%g : memref<5x2xf32>)
  aicf_loop.nest domain = [4, 2] iterators = [reduction, parallel]
      ins(%t : memref<4x2xf32>) outs(%s : memref<2xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] combiners = [add] {
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }
  func.return
}

func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %a = memref.get_global @num : memref<6xi32>
  %b = memref.get_global @den : memref<6xi32>
  %q = memref.alloc() : memref<6xi32>
  %r = memref.alloc() : memref<6xi32>
  %p = memref.alloc() : memref<6xi32>
  func.call @int_ops(%a, %b, %q, %r, %p) : (memref<6xi32>, memref<6xi32>, memref<6xi32>, memref<6xi32>, memref<6xi32>) -> ()
  %qu = "memref.cast"(%q) : (memref<6xi32>) -> memref<*xi32>
  %ru = "memref.cast"(%r) : (memref<6xi32>) -> memref<*xi32>
  %pu = "memref.cast"(%p) : (memref<6xi32>) -> memref<*xi32>
  // 7/2 -7/2 5/0 MIN/-1 3/-2 -1/3: truncating; by 0: 0; MIN / -1 wraps
  // CHECK: [3,  -3,  0,  -2147483648,  -1,  0]
  func.call @printMemrefI32(%qu) : (memref<*xi32>) -> ()
  // CHECK: [1,  -1,  0,  0,  1,  -1]
  func.call @printMemrefI32(%ru) : (memref<*xi32>) -> ()
  // 7**2 (-7)**2 5**0 MIN**-1 3**-2 (-1)**3
  // CHECK: [49,  49,  1,  0,  0,  -1]
  func.call @printMemrefI32(%pu) : (memref<*xi32>) -> ()
  %t = memref.get_global @rows : memref<4x2xf32>
  %ids = memref.get_global @ids : memref<5xi64>
  %g = memref.alloc() : memref<5x2xf32>
  %s = memref.alloc() : memref<2xf32>
  func.call @take_and_sum(%t, %ids, %g, %s) : (memref<4x2xf32>, memref<5xi64>, memref<5x2xf32>, memref<2xf32>) -> ()
  %gu = "memref.cast"(%g) : (memref<5x2xf32>) -> memref<*xf32>
  %su = "memref.cast"(%s) : (memref<2xf32>) -> memref<*xf32>
  // rows 0, -1 -> 3, 9 -> clamped 3, -9 -> -5 -> clamped 0, 2
  // CHECK:      {{\[}}[0.5,   1],
  // CHECK-NEXT:  [32,   64],
  // CHECK-NEXT:  [32,   64],
  // CHECK-NEXT:  [0.5,   1],
  // CHECK-NEXT:  [8,   16]]
  func.call @printMemrefF32(%gu) : (memref<*xf32>) -> ()
  // CHECK: [42.5,  85]
  func.call @printMemrefF32(%su) : (memref<*xf32>) -> ()
  memref.dealloc %q : memref<6xi32>
  memref.dealloc %r : memref<6xi32>
  memref.dealloc %p : memref<6xi32>
  memref.dealloc %g : memref<5x2xf32>
  memref.dealloc %s : memref<2xf32>
  func.return
}
