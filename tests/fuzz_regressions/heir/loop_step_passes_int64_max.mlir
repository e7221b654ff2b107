!Z = !mod_arith.int<17 : i64>
#ring = #polynomial.ring<coefficientType = !rns.rns<!Z, !Z>, polynomialModulus = <1 + x**4096>>
#chain = #lwe.modulus_chain<elements = <17 : i64, 97 : i64>, current = 1>
!ct = !lwe.lwe_ciphertext<ciphertext_space = #lwe.ciphertext_space<ring = #ring, encryption_type = mix>, modulus_chain = #chain>
func.func @f(%x: !ct) -> !ct {
  %c0 = arith.constant 9223372036854775806 : i64
  %hi = arith.constant 9223372036854775807 : i64
  %c2 = arith.constant 2 : i64
  %r = scf.for %i = %c0 to %hi step %c2 iter_args(%a = %x) -> (!ct) {
    %b = ckks.negate %a : !ct
    scf.yield %b : !ct
  }
  return %r : !ct
}
