//! The skim's vector probe: eight positions per 32-byte block with AVX2.
//!
//! Contract: [`find`] passes to [`Group::confirm`] exactly the positions the scalar probe of the
//! same skim would (every 4th position whose gram passes a group's bitmap under
//! [`Hash::Lanes`]), from position 0 up to the position it returns; the caller probes the rest.
//! Given [`Marks`], it also pushes, in order, every position below the one it returns that holds
//! one of the marks' two bytes (what `memchr2` would find there), in a pass of its own over
//! each chunk of bytes it has just probed.
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
pub(crate) use x86::{Avx2, ROUND, find};

#[cfg(not(target_arch = "x86_64"))]
pub(crate) use other::{Avx2, ROUND, find};

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

    /// The x86 probe's round, which [`super::super::LINES_STEP`] names (never used here: no
    /// vector probe counts lines).
    pub(crate) const ROUND: usize = 128;
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use std::arch::x86_64::*;

    use super::super::{Group, Hash, K1, K2, LINES_STEP, Marks, STEP_ROUNDS, Skim, load8};

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
        let Some(m) = marks else {
            // SAFETY: the `Avx2` token exists, so the CPU has AVX2.
            return unsafe { find_avx2(sk, hay, 0, hay.len(), out) };
        };
        // The marks' compare looks a byte up by its low four bits (see `find_marks`): it takes two
        // ASCII bytes that differ there.
        let [a, b] = m.bytes;
        assert!(a < 0x80 && b < 0x80 && a & 15 != b & 15, "marks {a:#x} and {b:#x} need distinct low nibbles");
        debug_assert!(m.lines.is_empty(), "cleared by `Skim::find_marking`");
        m.lines.reserve(hay.len() / LINES_STEP + 1);
        m.lines.push(0);
        // The marks pass follows the probe a chunk at a time, while the chunk is still in L1
        // (48 KiB a core here): after the probe of a whole 4 MiB file block, it read the block
        // back from L3 (see `MARKS_CHUNK`).
        let mut from = 0;
        loop {
            let to = (from + MARKS_CHUNK).min(hay.len());
            // SAFETY (both calls): the `Avx2` token exists, so the CPU has AVX2.
            let p = unsafe { find_avx2(sk, hay, from, to, out) };
            unsafe { find_marks(hay, from, p, m) };
            if p < from + MARKS_CHUNK {
                return p;
            }
            from = p;
        }
    }

    /// Bytes the probe reads before the marks pass reads them again: well inside L1d, and a
    /// whole number of [`LINES_STEP`]s (the line counts' steps start at multiples of it). On
    /// the 100 MB peers corpus, one thread pinned to one core, 100 interleaved rounds less
    /// start-up: `--unknown warn` cost 9.6% over `off` with the pass after each 4 MiB block,
    /// 8.4% with it after each 16 KiB (0.4 M more instructions on 20 MB, the two loops' set-up
    /// per chunk).
    const MARKS_CHUNK: usize = 16 * LINES_STEP;

    /// Bytes a round probes: four blocks of eight lanes, whose gathers are independent and
    /// overlap, and one branch for all of them. Measured on 100 MB (skim alone): 39.2 ms with
    /// rounds of 64 bytes, 35.2 with 128, 35.7 with 256 (4,350 records); 89 -> 77.6 ms for 43,500
    /// records, 64 -> 128.
    pub(crate) const ROUND: usize = 128;
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

    /// The probe loop over the rounds from `from` that start below `end` (and whose reads fit in
    /// `hay`); returns the first position not probed.
    #[target_feature(enable = "avx2")]
    fn find_avx2(sk: &Skim, hay: &[u8], from: usize, end: usize, out: &mut Vec<(usize, u32)>) -> usize {
        let (long, short) = (&sk.long, &sk.short);
        let k1 = _mm256_set1_epi32(K1 as i32);
        let k2 = _mm256_set1_epi32(K2 as i32);
        // The bits of each lane's second half that belong to the group's gram (`Hash::Lanes`).
        let lane_mask = |g: &Group| _mm256_set1_epi32((g.mask >> 32) as u32 as i32);
        let (lmask, smask) = (lane_mask(long), lane_mask(short));
        let lshift = _mm_cvtsi32_si128(32 - long.bits as i32);
        let sshift = _mm_cvtsi32_si128(32 - short.bits as i32);
        let mut p = from;
        while p < end && p + READ <= hay.len() {
            let bytes: &[u8; READ] = hay[p..p + READ].try_into().expect("READ bytes");
            let mut masks = [(0u32, 0u32); ROUND / 32];
            for (block, m) in masks.iter_mut().enumerate() {
                let at = bytes[block * 32..].as_ptr();
                // SAFETY: `bytes` holds READ bytes, so 32 bytes from `block * 32` and from 4 bytes
                // further are in it; `loadu` has no alignment requirement.
                let (a, b) = unsafe { (_mm256_loadu_si256(at.cast()), _mm256_loadu_si256(at.add(4).cast())) };
                let ak1 = _mm256_mullo_epi32(a, k1);
                let (lh, sh) = (hashes(ak1, b, k2, lmask), hashes(ak1, b, k2, smask));
                *m = (test(long, lh, lshift), test(short, sh, sshift));
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

    /// Push every position of the marks' bytes in `hay[from..to]` (whole rounds: the chunk the
    /// probe has just read), ascending.
    ///
    /// A pass of its own over the bytes the probe has read, not compares inside the probe's
    /// rounds: there they kept each round's loads alive past its eight gathers, the compiler
    /// spilled the round's vectors to the stack (68 stack moves against 36), and the probe ran
    /// 11% longer with `--unknown warn` (47 more instructions a round; this pass runs about 17).
    ///
    /// It counts the line breaks too, a total every [`STEP_ROUNDS`] rounds ([`Marks::lines`]):
    /// the framer's count of the lines it skips, a pass of its own over nearly every byte, is
    /// then taken from here.
    ///
    /// It reads `hay[from..to]`: `from` a multiple of [`LINES_STEP`], the range whole rounds, and
    /// `marks.lines` holding the counts up to `from`.
    #[target_feature(enable = "avx2")]
    fn find_marks(hay: &[u8], from: usize, to: usize, marks: &mut Marks) {
        // Is a byte one of the marks? One shuffle and one compare: the shuffle picks, by the
        // byte's low four bits, the mark that has them, or 0xff (no ASCII byte is that; a byte
        // with its high bit set is shuffled to 0, which it is not either), and the compare
        // keeps the bytes equal to what was picked.
        let mut table = [0xffu8; 16];
        for b in marks.bytes {
            table[usize::from(b & 15)] = b;
        }
        let t = table.map(|b| b as i8);
        let table = _mm256_setr_epi8(
            t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], t[12], t[13], t[14], t[15], t[0], t[1], t[2],
            t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], t[12], t[13], t[14], t[15],
        );
        let is_mark = |a: __m256i| _mm256_cmpeq_epi8(_mm256_shuffle_epi8(table, a), a);
        let nl = _mm256_set1_epi8(b'\n' as i8);
        debug_assert!(from % LINES_STEP == 0 && (to - from) % ROUND == 0);
        debug_assert_eq!(marks.lines.len(), from / LINES_STEP + 1);
        let mut lines = *marks.lines.last().expect("the count at 0 is pushed first");
        // The blocks' marks of a step, kept as bit masks and pushed after the step's rounds: with
        // the pushes (which may grow their vector, a call) inside the rounds, the compiler kept
        // the mark table, the line count and two compares on the stack. Only a marked round's
        // masks are written, and only those are read. With the line count below, the pass went
        // from 55 to 43 instructions a round on the peers corpus (callgrind).
        let mut masks = [0u32; 4 * STEP_ROUNDS];
        for (step, chunk) in hay[from..to].chunks(LINES_STEP).enumerate() {
            let step = from / LINES_STEP + step;
            let rounds = chunk.len() / ROUND;
            // Each byte lane counts the line breaks met in it over the step's rounds (at most 4
            // a round, 32 a step: well under a byte's 255), summed once a step: a compare and a
            // subtract a block, where there were a compare, a movemask and a POPCNT a block and
            // a total pushed every round.
            let mut acc = _mm256_setzero_si256();
            // The step's rounds with a mark, a bit each: only those are read after the rounds.
            let mut marked = 0u32;
            for (r, round) in chunk.chunks_exact(ROUND).enumerate() {
                // SAFETY: a round holds ROUND bytes, so 32 from each `block * 32`; `loadu` has
                // no alignment requirement.
                let load = |block: usize| unsafe { _mm256_loadu_si256(round[block * 32..].as_ptr().cast()) };
                let a = [load(0), load(1), load(2), load(3)];
                for v in a {
                    acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(v, nl));
                }
                let eq = a.map(is_mark);
                let any = _mm256_or_si256(_mm256_or_si256(eq[0], eq[1]), _mm256_or_si256(eq[2], eq[3]));
                // On RisingWave logs one round in about 9 has a mark.
                if _mm256_testz_si256(any, any) == 0 {
                    for (block, eq) in eq.iter().enumerate() {
                        masks[r * 4 + block] = _mm256_movemask_epi8(*eq) as u32;
                    }
                    marked |= 1 << r;
                }
            }
            if rounds == STEP_ROUNDS {
                let sums = _mm256_sad_epu8(acc, _mm256_setzero_si256());
                let two = _mm_add_epi64(_mm256_castsi256_si128(sums), _mm256_extracti128_si256::<1>(sums));
                lines += (_mm_cvtsi128_si64(two) + _mm_extract_epi64::<1>(two)) as u32;
                marks.lines.push(lines);
            }
            while marked != 0 {
                let r = marked.trailing_zeros() as usize;
                marked &= marked - 1;
                for (block, &m) in masks[r * 4..r * 4 + 4].iter().enumerate() {
                    let mut m = m;
                    while m != 0 {
                        marks.at.push(step * LINES_STEP + r * ROUND + block * 32 + m.trailing_zeros() as usize);
                        m &= m - 1;
                    }
                }
            }
        }
    }
}
