//! The skim's vector probe: eight positions per 32-byte block with AVX2.
//!
//! Contract: [`find`] passes to [`Group::confirm`] exactly the positions the scalar probe of the
//! same skim would (every 4th position whose gram passes a group's bitmap under
//! [`Hash::Lanes`]), from position 0 up to the position it returns; the caller probes the rest.
//! Given [`Marks`], it also pushes, in order, every position below the one it returns that holds
//! one of the marks' two bytes (what `memchr2` would find there), from the blocks it loads
//! anyway.
//!
//! The only `unsafe` in annotail lives here, for three reasons the safe language has no answer
//! to: calling a function compiled for AVX2 (sound once [`Avx2::detect`] has seen the CPU has
//! it: the token can be made no other way), loading 32 bytes into a vector register (from a
//! slice bounds-checked first), and gathering bitmap words (at indices shifted down from a hash
//! of `bits` bits, so below the bitmap's length by construction).
//!
//! Why: the scalar probe costs about five cycles a position whatever its instruction count
//! (BENCHMARKS.md, "What did not help"); hashing eight positions at once and fetching their
//! bitmap words with one gather per group takes a fraction of that.

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::{Avx2, find};

#[cfg(not(target_arch = "x86_64"))]
pub(crate) use other::{Avx2, find};

#[cfg(not(target_arch = "x86_64"))]
mod other {
    use super::super::{Marks, Skim};

    /// No vector probe on this architecture: never constructed.
    #[derive(Debug, Clone, Copy)]
    pub(crate) enum Avx2 {}

    impl Avx2 {
        pub(crate) fn detect() -> Option<Avx2> {
            None
        }
    }

    pub(crate) fn find(avx2: Avx2, _: &Skim, _: &[u8], _: &mut Vec<(usize, u32)>, _: Option<&mut Marks>) -> usize {
        match avx2 {}
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use std::arch::x86_64::*;

    use super::super::{Group, Hash, K1, K2, Marks, Skim, load8};

    /// Proof that this CPU has AVX2: only [`Avx2::detect`] makes one.
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Avx2(());

    impl Avx2 {
        pub(crate) fn detect() -> Option<Avx2> {
            is_x86_feature_detected!("avx2").then_some(Avx2(()))
        }
    }

    /// Probe every 4th position of `hay` while a whole round and the 4 bytes after it fit;
    /// returns the first position not probed.
    pub(crate) fn find(_: Avx2, sk: &Skim, hay: &[u8], out: &mut Vec<(usize, u32)>, marks: Option<&mut Marks>) -> usize {
        assert!(sk.stride == 4 && sk.long.hash == Hash::Lanes && sk.short.hash == Hash::Lanes);
        // What the gathers' bounds rest on (see `test`): each bitmap holds 2^bits bits; and the
        // second bit's 5 hash bits sit below the slot's `bits`.
        for g in [&sk.long, &sk.short] {
            assert!(g.bits >= 6 && g.bits <= 27 && g.bitmap.len() == 1 << (g.bits - 6));
        }
        // SAFETY: the `Avx2` token exists, so the CPU has AVX2.
        match marks {
            None => unsafe { find_avx2::<false>(sk, hay, out, &mut Marks::new([0; 2])) },
            Some(m) => unsafe { find_avx2::<true>(sk, hay, out, m) },
        }
    }

    /// Bytes a round probes: four blocks of eight lanes, whose gathers are independent and
    /// overlap, and one branch for all of them. Measured on 100 MB (skim alone): 39.2 ms with
    /// rounds of 64 bytes, 35.2 with 128, 35.7 with 256 (4,350 records); 89 -> 77.6 ms for 43,500
    /// records, 64 -> 128.
    const ROUND: usize = 128;
    /// Bytes a round reads: its blocks, and the 4 bytes after them (the second half of the last
    /// lane's gram).
    const READ: usize = ROUND + 4;

    /// The hashes of eight grams under [`Hash::Lanes`], from their lanes `a` (times [`K1`]) and
    /// `b`.
    #[target_feature(enable = "avx2")]
    fn hashes(ak1: __m256i, b: __m256i, k2: __m256i, bmask: __m256i) -> __m256i {
        _mm256_xor_si256(ak1, _mm256_mullo_epi32(_mm256_and_si256(b, bmask), k2))
    }

    /// A mask of the eight lanes whose two bits (their hash's slot, and the 5 bits below it in
    /// the same 32-bit word) are set in `g`'s bitmap.
    #[target_feature(enable = "avx2")]
    fn test(g: &Group, h: __m256i, shift: __m128i) -> u32 {
        debug_assert_eq!(_mm_cvtsi128_si32(shift), 32 - g.bits as i32);
        let slot = _mm256_srl_epi32(h, shift);
        // SAFETY: a slot is a 32-bit hash shifted right by 32 - bits, so below 2^bits; its
        // 32-bit word index is below 2^(bits - 5), the bitmap's length in 32-bit words (it
        // holds 2^(bits - 6) `u64`s, which `find` asserts).
        let words = unsafe { _mm256_i32gather_epi32::<4>(g.bitmap.as_ptr().cast(), _mm256_srli_epi32::<5>(slot)) };
        // Move each bit to the sign bit (a left shift by 31 minus its index), and keep the
        // lanes where both are set.
        let low5 = _mm256_set1_epi32(31);
        let first = _mm256_sllv_epi32(words, _mm256_andnot_si256(slot, low5));
        let second = _mm256_sllv_epi32(
            words,
            _mm256_andnot_si256(_mm256_srl_epi32(h, _mm_sub_epi64(shift, _mm_cvtsi32_si128(5))), low5),
        );
        _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_and_si256(first, second))) as u32
    }

    /// `MARK`: also push the positions of the marks' bytes (compiled apart, so that a skim
    /// without marks pays nothing for them).
    #[target_feature(enable = "avx2")]
    fn find_avx2<const MARK: bool>(sk: &Skim, hay: &[u8], out: &mut Vec<(usize, u32)>, marks: &mut Marks) -> usize {
        let (long, short) = (&sk.long, &sk.short);
        let k1 = _mm256_set1_epi32(K1 as i32);
        let k2 = _mm256_set1_epi32(K2 as i32);
        // The bits of each lane's second half that belong to the group's gram (`Hash::Lanes`).
        let lane_mask = |g: &Group| _mm256_set1_epi32((g.mask >> 32) as u32 as i32);
        let (lmask, smask) = (lane_mask(long), lane_mask(short));
        let lshift = _mm_cvtsi32_si128(32 - long.bits as i32);
        let sshift = _mm_cvtsi32_si128(32 - short.bits as i32);
        let [m0, m1] = marks.bytes.map(|b| _mm256_set1_epi8(b as i8));
        let mut p = 0;
        while p + READ <= hay.len() {
            let bytes: &[u8; READ] = hay[p..p + READ].try_into().expect("READ bytes");
            let mut masks = [(0u32, 0u32); ROUND / 32];
            // The marks' bytes anywhere in the round: one test per round, the blocks looked at
            // again only when there is one (on RisingWave logs, one round in about 20).
            let mut marked = _mm256_setzero_si256();
            for (block, m) in masks.iter_mut().enumerate() {
                let at = bytes[block * 32..].as_ptr();
                // SAFETY: `bytes` holds READ bytes, so 32 bytes from `block * 32` and from 4 bytes
                // further are in it; `loadu` has no alignment requirement.
                let (a, b) = unsafe { (_mm256_loadu_si256(at.cast()), _mm256_loadu_si256(at.add(4).cast())) };
                let ak1 = _mm256_mullo_epi32(a, k1);
                let (lh, sh) = (hashes(ak1, b, k2, lmask), hashes(ak1, b, k2, smask));
                *m = (test(long, lh, lshift), test(short, sh, sshift));
                if MARK {
                    marked = _mm256_or_si256(marked, _mm256_or_si256(_mm256_cmpeq_epi8(a, m0), _mm256_cmpeq_epi8(a, m1)));
                }
            }
            if MARK && _mm256_testz_si256(marked, marked) == 0 {
                for block in 0..ROUND / 32 {
                    // SAFETY: as above.
                    let a = unsafe { _mm256_loadu_si256(bytes[block * 32..].as_ptr().cast()) };
                    let eq = _mm256_or_si256(_mm256_cmpeq_epi8(a, m0), _mm256_cmpeq_epi8(a, m1));
                    let mut m = _mm256_movemask_epi8(eq) as u32;
                    while m != 0 {
                        marks.at.push(p + block * 32 + m.trailing_zeros() as usize);
                        m &= m - 1;
                    }
                }
            }
            if masks.iter().any(|&(l, s)| l | s != 0) {
                for (block, &(l, s)) in masks.iter().enumerate() {
                    for (group, mut m) in [(long, l), (short, s)] {
                        while m != 0 {
                            let at = p + block * 32 + 4 * m.trailing_zeros() as usize;
                            group.confirm(hay, at, load8(hay, at), &sk.lits, out);
                            m &= m - 1;
                        }
                    }
                }
            }
            p += ROUND;
        }
        p
    }
}
