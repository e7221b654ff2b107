!Z = !mod_arith.int<17 : i64>
#ring = #polynomial.ring<coefficientType = !rns.rns<!Z, !Z>, polynomialModulus = <1 + x**4096>>
#chain = #lwe.modulus_chain<elements = <17 : i64, 97 : i64>, current = 1>
!ct = !lwe.lwe_ciphertext<ciphertext_space = #lwe.ciphertext_space<ring = #ring, encryption_type = mix>, modulus_chain = #chain>
func.func @f(%x: !ct) -> !ct {
  %c1 = arith.constant 1 : i64
  %s = arith.addi %c1 : i64
  %y = ckks.negate %x : !ct
  return %y : !ct
}
