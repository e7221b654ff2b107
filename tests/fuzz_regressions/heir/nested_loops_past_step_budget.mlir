!Z = !mod_arith.int<17 : i64>
#ring = #polynomial.ring<coefficientType = !rns.rns<!Z, !Z>, polynomialModulus = <1 + x**4096>>
#chain = #lwe.modulus_chain<elements = <17 : i64, 97 : i64>, current = 1>
!ct = !lwe.lwe_ciphertext<ciphertext_space = #lwe.ciphertext_space<ring = #ring, encryption_type = mix>, modulus_chain = #chain>
func.func @f(%x: !ct) -> !ct {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4000000 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
    }
  }
  %y = ckks.negate %x : !ct
  return %y : !ct
}
