//! The skim: finds every occurrence of every literal with strided q-gram probes.
//!
//! Contract: exact and complete. [`Skim::find`] reports each occurrence of each literal it
//! indexes exactly once, as (end, literal id); literals it does not index (shorter than
//! [`SHORT_MIN`]) are reported as `unindexed` for another searcher.
//!
//! How (after Hyperscan's FDR): each literal is indexed by `s` consecutive q-grams of one window
//! of `q + s - 1` bytes, the window whose grams are rarest in a sample of real RisingWave logs.
//! An occurrence of the literal puts its window over `s` consecutive text positions, exactly one
//! of which is a multiple of `s`: probing the gram at every `s`-th position meets one indexed
//! gram, once. A probe hashes the gram to a bit (two, for the vector probe's hash) of an
//! L1/L2-sized bitmap; the rare probe that passes looks the gram up in a hash table of (literal,
//! offset) and compares the literal in place. Literals are split by length into groups with their own `q`, since a group's window
//! must fit in its shortest literal; both groups probe at one stride.
//!
//! Two probes: on CPUs with AVX2 a vector probe ([`simd`]) hashes eight positions of a 32-byte
//! block at once at stride 4; elsewhere a scalar probe, whose stride is chosen per catalog (a
//! `Layout`) from the sample: the stride whose probes and expected passes cost least. Both find
//! the same occurrences.

use rustc_hash::FxHashMap;

mod simd;

/// A skim layout: both groups probe every `stride`-th position, so one load serves both.
/// Groups are (minimum literal length, q, stride): long literals get 8-byte grams, short ones
/// (down to 8 bytes: the shortest keys of the RisingWave catalog) shorter grams, since a group's
/// window (`q + stride - 1` bytes) must fit in its shortest literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    stride: usize,
    long: (usize, usize, usize),
    short: (usize, usize, usize),
}

/// The layouts a catalog is skimmed with, the one expected to cost least chosen at build time
/// (see [`Skim::new`]). Stride 5 probes fewer positions; stride 4 indexes short literals by
/// 5-byte grams instead of 4-byte ones, far rarer in logs. Measured on 100 MB: the 4,350-record
/// catalog skims in 59 ms at stride 5 and 65 ms at stride 4 (35 short literals); the
/// 43,500-record one in 146 ms at stride 5 and 110 ms at stride 4 (402 short literals, whose
/// 4-byte grams passed on 10% of probes). Strides 6 to 8 pushed too many keys below the short
/// group's minimum (BENCHMARKS.md).
const LAYOUTS: [Layout; 2] = [
    Layout { stride: 5, long: (12, 8, 5), short: (8, 4, 5) },
    Layout { stride: 4, long: (11, 8, 4), short: (8, 5, 4) },
];

/// The layout keys are chosen for (before the catalog's own layout is known).
const KEY_LAYOUT: Layout = LAYOUTS[0];

/// Costs the layout choice weighs, in nanoseconds: a probe of one position (a load, two hashes,
/// two bit tests; 45 ms for 21 M positions) and a probe that passes (a table lookup and two
/// compares; ~33 ns, from the same runs).
const PROBE_NS: f64 = 2.2;
const PASS_NS: f64 = 33.0;

/// Literals shorter than this are left to the caller.
pub const SHORT_MIN: usize = 8;
const _: () = assert!(LAYOUTS[0].short.0 == SHORT_MIN && LAYOUTS[1].short.0 == SHORT_MIN);

/// Bitmap size: 2^BITS_PER_GRAM bits per indexed gram (rounded up to a power of two) keeps the
/// fill near 3%. For the 4,350-record catalog that is 2^20 bits (128 KiB, in L2) for ~20,000
/// long-literal grams; 2^19 to 2^21 measured within 3% of each other there (most passes are
/// real common grams, not collisions). At most 2^22 bits (512 KiB): a larger bitmap falls out
/// of a 1 MiB L2 and every probe pays for it. The 43,500-record catalog (~170,000 grams) would
/// get 2^23; capped, its fill doubles to about 4%, yet it skims 100 MB in 96 ms instead of 99.5.
const BITS_PER_GRAM: u32 = 5;
const MIN_BITS: u32 = 16;
const MAX_BITS: u32 = 22;
// The lane hash takes a slot's `bits` and 5 more below them from 32 bits.
const _: () = assert!(MAX_BITS + 5 <= 32);

/// The short group's bitmap is four times sparser: it has few grams (175 for the real catalog,
/// 1,608 for the 43,500-record one), so even 2^18 bits stay in L1, while a probe collides (and
/// pays a table lookup) about as often as the fill rate says. Measured on 100 MB: short passes
/// fell from 193,000 to 140,000 (real catalog, skim time unchanged) and from 703,000 to 531,000
/// (43,500 records, 94 -> 90 ms).
const SHORT_EXTRA_BITS: u32 = 2;

/// The vector probe's long bitmap is four times sparser (still capped at [`MAX_BITS`]): it
/// probes at stride 4, where a literal has four grams, not five, which rounds the 4,350-record
/// catalog's bitmap down to 2^19 bits; and a probe costs so little that collisions show. Measured
/// on 100 MB with that catalog: long passes 729,000 -> 206,000, skim 52.7 -> 39.0 ms (2^22 bits:
/// 139,000 passes, 39.6-40.1 ms). Since a gram sets two bits ([`Hash::Lanes`]) the factor matters
/// less: 109,000 passes at 4, 140,000 at 2, the skim 35.2 ms either way.
const LANES_EXTRA_BITS: u32 = 2;

/// Hash multiplier (odd, well-mixed high bits).
const H: u64 = 0x9E37_79B9_7F4A_7C15;

/// Multipliers of the lane hash (odd, well-mixed high bits: the 32-bit golden ratio and
/// xxHash's second prime).
const K1: u32 = 0x9E37_79B1;
const K2: u32 = 0x85EB_CA77;

/// How a gram's bitmap slot is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hash {
    /// The high bits of the gram's 64-bit product with [`H`]: one multiplication per position
    /// serves both groups (the scalar probe).
    Mul64,
    /// The gram as two 32-bit lanes `a` (its first 4 bytes) and `b` (the next 4, masked to the
    /// group's `q`): `h = a * K1 ^ b * K2`, whose high `bits` bits are the slot. Eight positions
    /// are hashed at once in 32-bit SIMD lanes, which have no 64-bit multiplication below
    /// AVX-512.
    ///
    /// A gram sets two bits of the slot's 32-bit word: the slot's, and the one the 5 bits of `h`
    /// below the slot name (a blocked Bloom filter). One gather still fetches one word per lane,
    /// and a gram that is not indexed passes only if both its bits are set. Measured on 100 MB
    /// with the 43,500-record catalog: long-group passes that are no indexed gram fell from
    /// 431,000 to 82,000, and the skim from 75 to 68 ms; with the real catalog, from 108,000 to
    /// 11,000 (skim time unchanged, 35 ms).
    Lanes,
}

struct Group {
    q: usize,
    mask: u64,
    hash: Hash,
    /// A slot is `bits` bits of the product of the gram (all 8 loaded bytes) and [`H`]: those
    /// that end at bit `8 * q`. The low `8 * q` bits of a product depend only on the low `8 * q`
    /// bits of the factors, that is on the gram's `q` bytes, so both groups' slots come from one
    /// multiplication per position.
    shift: u32,
    bits: u32,
    bitmap: Vec<u64>,
    /// (gram, owner), while the group is indexed: [`Group::finish`] moves them into `table`. One
    /// vector, not a map of owner lists: a list per gram was 100,000 allocations and 14 MB of
    /// start-up's peak for 43,500 records.
    building: Vec<(u64, Owner)>,
    /// gram → owners: (the literal's first and last 8 bytes, literal id, offset of the gram in
    /// it). Two 8-byte comparisons reject nearly every owner before the literal is compared
    /// (many literals share a first word: `failed to`).
    table: Table,
}

impl Group {
    fn new((_, q, _): (usize, usize, usize), bits: u32, hash: Hash) -> Group {
        let mask = gram_mask(q);
        let shift = (8 * q.min(8) as u32).checked_sub(bits).expect("a slot fits in the gram's product bits");
        let bitmap = vec![0; 1 << (bits - 6)];
        Group { q, mask, hash, shift, bits, bitmap, building: Vec::new(), table: Table::default() }
    }

    /// The slot of a gram, from its product with [`H`] ([`Hash::Mul64`]).
    #[inline(always)]
    fn slot(&self, product: u64) -> usize {
        ((product >> self.shift) & ((1 << self.bits) - 1)) as usize
    }

    /// The slots of a gram (its bytes from the first, at least `q` of them) under either hash:
    /// the gram passes if both bits are set. [`Hash::Mul64`] has one slot (given twice);
    /// [`Hash::Lanes`] two in one 32-bit word.
    #[inline(always)]
    fn slots_of(&self, g: u64) -> (usize, usize) {
        match self.hash {
            Hash::Mul64 => {
                let s = self.slot(g.wrapping_mul(H));
                (s, s)
            }
            Hash::Lanes => {
                let (a, b) = (g as u32, ((g & self.mask) >> 32) as u32);
                let h = a.wrapping_mul(K1) ^ b.wrapping_mul(K2);
                let slot = (h >> (32 - self.bits)) as usize;
                (slot, slot & !31 | (h >> (27 - self.bits)) as usize & 31)
            }
        }
    }

    /// Does the gram `g` pass the bitmap, under either hash?
    #[inline(always)]
    fn pass_gram(&self, g: u64) -> bool {
        let (s1, s2) = self.slots_of(g);
        self.is_set(s1) && self.is_set(s2)
    }

    #[inline(always)]
    fn is_set(&self, slot: usize) -> bool {
        self.bitmap[slot >> 6] & (1 << (slot & 63)) != 0
    }

    fn insert(&mut self, gram: &[u8], lit: &[u8], id: u32, off: usize) {
        let g = load(gram, 0) & self.mask;
        let (s1, s2) = self.slots_of(g);
        for i in [s1, s2] {
            self.bitmap[i >> 6] |= 1 << (i & 63);
        }
        self.building.push((g, (load8(lit, 0), load8(lit, lit.len() - 8), id, off as u32, lit.len() as u32)));
    }

    /// Move the owners into the probe's table.
    fn finish(&mut self) {
        self.table = Table::new(std::mem::take(&mut self.building));
    }

    /// Does the gram whose product with [`H`] is `product` pass the bitmap ([`Hash::Mul64`])?
    #[inline(always)]
    fn pass(&self, product: u64) -> bool {
        self.is_set(self.slot(product))
    }

    /// The gram at `p` passed the bitmap: compare the literals it may belong to.
    #[cold]
    fn confirm(&self, hay: &[u8], p: usize, g: u64, lits: &[Vec<u8>], out: &mut Vec<(usize, u32)>) {
        let Some(slot) = self.table.find(g & self.mask) else { return };
        // Is `lit` (`len` bytes) at `start`? Its first and last 8 bytes first, from the owner
        // itself: cheap, nearly always decisive, and the literal's own bytes (another cache
        // miss) are read only when both agree.
        let check = |start: usize, head: u64, tail: u64, lit: u32, len: u32, out: &mut Vec<(usize, u32)>| {
            let len = len as usize;
            if hay.len() - start < len {
                return;
            }
            let end = start + len;
            if load8(hay, start) == head
                && load8(hay, end - 8) == tail
                && (len <= 16 || {
                    let l = &lits[lit as usize];
                    hay[start + 8..end - 8] == l[8..len - 8]
                })
            {
                out.push((end, lit));
            }
        };
        if slot.len != 0 {
            if let Some(start) = p.checked_sub(usize::from(slot.off)) {
                check(start, slot.head, slot.tail, slot.lit, u32::from(slot.len), out);
            }
            return;
        }
        match &self.table.shared[slot.lit as usize] {
            Owners::Few(v) => {
                for &(head, tail, lit, off, len) in v {
                    if let Some(start) = p.checked_sub(off as usize) {
                        check(start, head, tail, lit, len, out);
                    }
                }
            }
            Owners::Many(many) => {
                let ManyOwners { offs, by_head } = &**many;
                for &off in offs {
                    let Some(start) = p.checked_sub(off as usize) else { continue };
                    if hay.len() - start < 8 {
                        continue;
                    }
                    let head = load8(hay, start);
                    if let Some(v) = by_head.get(&(off, head)) {
                        for &(tail, lit, len) in v {
                            check(start, head, tail, lit, len, out);
                        }
                    }
                }
            }
        }
    }
}

/// The literals a gram belongs to, when a [`Slot`] cannot hold its one owner.
#[derive(Clone)]
enum Owners {
    /// (first 8 bytes, last 8 bytes, literal id, offset of the gram in the literal, length).
    Few(Vec<Owner>),
    /// Many literals, indexed by offset and first bytes: a pass then costs a lookup per
    /// distinct offset instead of a comparison per owner (a gram shared by many literals, as in
    /// catalogs of near-identical records).
    Many(Box<ManyOwners>),
}

impl Owners {
    fn of(v: Vec<Owner>) -> Owners {
        if v.len() <= MANY_OWNERS {
            return Owners::Few(v);
        }
        let offs = distinct_offsets(&v);
        let mut by_head = ByHead::default();
        for &(head, tail, lit, off, len) in &v {
            by_head.entry((off, head)).or_default().push((tail, lit, len));
        }
        Owners::Many(Box::new(ManyOwners { offs, by_head }))
    }

    fn literals(&self) -> Vec<u32> {
        match self {
            Owners::Few(v) => v.iter().map(|o| o.2).collect(),
            Owners::Many(m) => m.by_head.values().flatten().map(|o| o.1).collect(),
        }
    }
}

/// The offsets at which owners hold their gram, each once, in order.
fn distinct_offsets(v: &[Owner]) -> Vec<u32> {
    let mut offs: Vec<u32> = v.iter().map(|o| o.3).collect();
    offs.sort_unstable();
    offs.dedup();
    offs
}

/// A gram and its one owner, or (`len` 0) the index of its owners in [`Table::shared`]. One
/// per cache-line half: a pass reads one line, where a hash map of owner lists read its control
/// bytes, then the entry, then (for most grams) nothing more, two misses in a table of 10 MB
/// (43,500 records: the two loads held over half of the time of a pass, `perf annotate`).
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Slot {
    gram: u64,
    head: u64,
    tail: u64,
    lit: u32,
    off: u16,
    len: u16,
}

/// `lit` of a slot no gram holds.
const EMPTY: u32 = u32::MAX;
const VACANT: Slot = Slot { gram: 0, head: 0, tail: 0, lit: EMPTY, off: 0, len: 0 };

/// gram → owners, open-addressed with linear probing.
struct Table {
    slots: Vec<Slot>,
    /// Owners of grams a slot cannot hold: several literals, or an offset or length over 16 bits.
    shared: Vec<Owners>,
    /// log2 of the number of slots.
    bits: u32,
}

impl Default for Table {
    fn default() -> Self {
        Table { slots: vec![VACANT], shared: Vec::new(), bits: 0 }
    }
}

/// Multiplier of the table's hash: not [`H`], whose product picks the bitmap slot, so grams that
/// pass the bitmap by colliding with an indexed gram do not also land on its table slot.
const T: u64 = 0xD6E8_FEB8_6659_FD93;

/// Slots per gram, at least: the table is between a quarter and half full, where a lookup of a
/// gram it lacks (a collision in the bitmap) reads about two slots.
const SLOTS_PER_GRAM: usize = 2;

impl Table {
    /// The table of (gram, owner) pairs, in any order.
    fn new(mut owners: Vec<(u64, Owner)>) -> Table {
        owners.sort_by_key(|o| o.0);
        let grams = owners.chunk_by(|a, b| a.0 == b.0).count();
        let bits = (grams * SLOTS_PER_GRAM).next_power_of_two().trailing_zeros();
        let mut table = Table { slots: vec![VACANT; 1 << bits], shared: Vec::new(), bits };
        let wrap = table.slots.len() - 1;
        for run in owners.chunk_by(|a, b| a.0 == b.0) {
            let gram = run[0].0;
            let slot = match run {
                &[(_, (head, tail, lit, off, len))] if off <= u32::from(u16::MAX) && len <= u32::from(u16::MAX) => {
                    Slot { gram, head, tail, lit, off: off as u16, len: len as u16 }
                }
                _ => {
                    table.shared.push(Owners::of(run.iter().map(|o| o.1).collect()));
                    Slot { gram, lit: (table.shared.len() - 1) as u32, ..VACANT }
                }
            };
            let mut i = table.index(gram);
            while table.slots[i].lit != EMPTY {
                i = (i + 1) & wrap;
            }
            table.slots[i] = slot;
        }
        table
    }

    #[inline(always)]
    fn index(&self, gram: u64) -> usize {
        (gram.wrapping_mul(T) >> 32 >> (32 - self.bits)) as usize
    }

    #[inline(always)]
    fn find(&self, gram: u64) -> Option<&Slot> {
        let wrap = self.slots.len() - 1;
        let mut i = self.index(gram);
        loop {
            let s = &self.slots[i];
            if s.lit == EMPTY {
                return None;
            }
            if s.gram == gram {
                return Some(s);
            }
            i = (i + 1) & wrap;
        }
    }

    /// Every gram and the literals that own it.
    fn grams(&self) -> impl Iterator<Item = (u64, Vec<u32>)> + '_ {
        self.slots.iter().filter(|s| s.lit != EMPTY).map(|s| (s.gram, self.literals(s)))
    }

    /// The literals that own a slot's gram.
    fn literals(&self, s: &Slot) -> Vec<u32> {
        if s.len != 0 { vec![s.lit] } else { self.shared[s.lit as usize].literals() }
    }

    fn memory_usage(&self) -> usize {
        self.slots.len() * size_of::<Slot>()
            + self
                .shared
                .iter()
                .map(|o| match o {
                    Owners::Few(v) => 32 + v.len() * 32,
                    Owners::Many(m) => 56 + m.offs.len() * 4 + m.by_head.len() * 56,
                })
                .sum::<usize>()
    }
}

/// Distinct offsets, and (offset, first 8 bytes) → (last 8 bytes, literal id, its length).
#[derive(Clone)]
struct ManyOwners {
    offs: Vec<u32>,
    by_head: ByHead,
}

/// (offset, first 8 bytes) → (last 8 bytes, literal id, its length).
type ByHead = FxHashMap<(u32, u64), Vec<(u64, u32, u32)>>;

/// A literal that owns a gram: (first 8 bytes, last 8 bytes, literal id, offset of the gram,
/// length of the literal).
type Owner = (u64, u64, u32, u32, u32);

/// Owner lists longer than this are indexed by offset and first bytes.
const MANY_OWNERS: usize = 8;

/// The bits of a loaded 8-byte word that hold a `q`-byte gram.
fn gram_mask(q: usize) -> u64 {
    if q >= 8 { u64::MAX } else { (1u64 << (8 * q)) - 1 }
}

/// The 8 bytes at `p` (the caller guarantees `p + 8 <= s.len()`).
#[inline(always)]
fn load8(s: &[u8], p: usize) -> u64 {
    u64::from_le_bytes(s[p..p + 8].try_into().expect("8 bytes"))
}

/// Up to 8 bytes at `p`, zero-padded.
#[inline(always)]
fn load(s: &[u8], p: usize) -> u64 {
    let mut b = [0u8; 8];
    let n = (s.len() - p).min(8);
    b[..n].copy_from_slice(&s[p..p + n]);
    u64::from_le_bytes(b)
}

/// How common q-grams are in a sample of real logs, as a small count sketch.
struct Sketch {
    counts: Vec<u16>,
    mask: u64,
}

/// 2^18 counters (512 KiB) for 1.7 MB of sample: few collisions between the grams of it.
const SKETCH_BITS: u32 = 18;

impl Sketch {
    fn new(samples: &[&[u8]], q: usize) -> Sketch {
        let mask = gram_mask(q);
        let mut sk = Sketch { counts: vec![0u16; 1 << SKETCH_BITS], mask };
        for sample in samples {
            // Whole 8-byte loads where they fit (most of the sample), padded ones at its end.
            let end = sample.len().saturating_sub(q - 1);
            let full = sample.len().saturating_sub(7).min(end);
            for p in 0..end {
                let g = if p < full { load8(sample, p) } else { load(sample, p) };
                let i = sk.slot(g);
                sk.counts[i] = sk.counts[i].saturating_add(1);
            }
        }
        sk
    }

    fn slot(&self, g: u64) -> usize {
        ((g & self.mask).wrapping_mul(H) >> (64 - SKETCH_BITS)) as usize
    }

    fn get(&self, gram: &[u8]) -> u32 {
        u32::from(self.counts[self.slot(load(gram, 0))])
    }
}

/// A sample of RisingWave meta-node logs: the example log shipped with annotail, and 10,000 lines
/// of `gen_corpus.py` with four seeds (101–104), whose filler messages are RisingWave's own log
/// templates in four different mixes. Grams common there are avoided when a literal's window and
/// a record's key are chosen. One 2,000-line log saw too few of the templates: words frequent in
/// other deployments (` change `, ` replace`, `coordinator`) looked rare, and half the skim's
/// probes that passed were such words (`examples/skim_stats.rs`).
const SAMPLE: &[u8] = include_bytes!("rarity_sample.log");

/// What an occurrence of a key costs against a probe that passes on one of its grams: a pass is
/// a table lookup and two 8-byte compares (~30 ns); an occurrence makes its records candidates,
/// whose confirmation walks the event (~0.5 µs).
const OCCURRENCE_COST: u32 = 16;

/// Bytes of the input annotail learns from, besides [`SAMPLE`] (see [`Rarity::learn_from`]).
/// 43,500 records, in-process scan of 100 MB (`examples/scan_bench.rs`): one MiB of the corpus
/// took 171–177 ms to 163–172, 256 KiB to 159–165 (against 163–173 without, same stretch), and
/// four MiB did no better; but the sketches are built while both cores parse the catalog, so
/// each MiB learnt costs start-up ~10 ms (2 MB input: 9–11 ms end to end without learning, 22–33
/// with a MiB).
pub const INPUT_SAMPLE: usize = 1 << 18;

/// How often the skim's probes would pass on a literal in real logs, from the sample.
pub struct Rarity {
    q8: Sketch,
    q4: Sketch,
    q5: Sketch,
    /// Bytes sampled: what the probes of a layout are counted over.
    len: usize,
}

impl Default for Rarity {
    /// Each sketch is a pass over the sample: a few milliseconds of start-up. Use
    /// [`Rarity::shared`], which builds them once per process.
    fn default() -> Self {
        Rarity::of(&[SAMPLE])
    }
}

/// Log text given by [`Rarity::learn_from`] before the shared statistics were built.
static LEARNT: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();

impl Rarity {
    fn of(samples: &[&[u8]]) -> Rarity {
        Rarity {
            q8: Sketch::new(samples, 8),
            q4: Sketch::new(samples, 4),
            q5: Sketch::new(samples, 5),
            len: samples.iter().map(|s| s.len()).sum(),
        }
    }

    /// Statistics of [`SAMPLE`] and of `input`, text of the logs about to be scanned: words
    /// common in them and rare in the sample (another deployment's table names, another mix of
    /// messages) are then avoided too.
    pub fn with_input(input: &[u8]) -> Rarity {
        Rarity::of(&[SAMPLE, &input[..input.len().min(INPUT_SAMPLE)]])
    }

    /// Learn from `input` (up to [`INPUT_SAMPLE`] bytes of it) too, in [`Rarity::shared`]: only
    /// before it is first built (later calls have no effect, and return false). Which grams are
    /// common decides how the skim indexes literals, never what it finds.
    pub fn learn_from(input: Vec<u8>) -> bool {
        LEARNT.set(input).is_ok()
    }

    /// The statistics of the sample and of the input given to [`Rarity::learn_from`], built by
    /// the first caller; concurrent callers wait for that one, and catalog reloads reuse it.
    pub fn shared() -> &'static Rarity {
        static SHARED: std::sync::OnceLock<Rarity> = std::sync::OnceLock::new();
        SHARED.get_or_init(|| {
            let r = match LEARNT.get_or_init(Vec::new) {
                input if input.is_empty() => Rarity::default(),
                input => Rarity::with_input(input),
            };
            tracing::debug!(sample = SAMPLE.len(), input = r.len - SAMPLE.len(), "gram statistics built");
            r
        })
    }

    /// The expected cost of keying on `lit`: for a literal the skim indexes, the summed sample
    /// counts of the grams of the window it would index (what its probes will pass on); for a
    /// shorter one, the count of its rarest 4-byte gram. Keys were once ranked by their rarest
    /// 8-byte gram, which said nothing of the window the skim indexes: a 10-byte key is indexed
    /// by 4-byte grams (`, schema: ` passed on every `, sc`), and a long key with one rare word
    /// could still be indexed where its common words were.
    pub fn estimate(&self, lit: &[u8]) -> u32 {
        let (sk, q) = if lit.len() >= 8 { (&self.q8, 8) } else { (&self.q4, 4) };
        if lit.len() < q {
            return u32::MAX;
        }
        let occurrences = (0..=lit.len() - q).map(|i| sk.get(&lit[i..i + q])).min().unwrap_or(u32::MAX);
        let passes = KEY_LAYOUT.shape(lit.len()).map_or(0, |shape| self.window(lit, shape).1);
        occurrences.saturating_mul(OCCURRENCE_COST).saturating_add(passes)
    }

    /// The window of `lit` the skim indexes (its start), and its cost: the sum of its grams'
    /// sample counts, each the number of probes per sample that would pass on that gram. Ties go
    /// to the window whose commonest gram is rarer.
    fn window(&self, lit: &[u8], (_, q, s): (usize, usize, usize)) -> (usize, u32) {
        let sk = match q {
            8 => &self.q8,
            5 => &self.q5,
            _ => &self.q4,
        };
        let counts: Vec<u32> = (0..=lit.len() - q).map(|i| sk.get(&lit[i..i + q])).collect();
        let cost =
            |j: usize| counts[j..j + s].iter().fold((0u32, 0u32), |(sum, mx), &c| (sum.saturating_add(c), mx.max(c)));
        let j = (0..counts.len() + 1 - s).min_by_key(|&j| cost(j)).expect("literal is at least one window long");
        (j, cost(j).0)
    }
}

/// What [`Skim::probe_stats`] counts: probes, bitmap passes per group, passes whose gram is an
/// indexed one (a real gram, not a collision) and how often each such gram passed.
#[derive(Debug, Default, Clone)]
pub struct SkimStats {
    pub probes: usize,
    pub long_passes: usize,
    pub short_passes: usize,
    pub long_in_table: usize,
    pub found: usize,
    pub long_literals: usize,
    pub short_literals: usize,
    pub top: FxHashMap<u64, usize>,
    /// The same for the short group's grams that passed (masked to its `q` bytes): whether real or not.
    pub top_short: FxHashMap<u64, usize>,
}

/// A layout applied to a catalog: each literal's window (its start; `None`: too short to
/// index), and what the layout is expected to cost over the sample: probes, and passes (the
/// sample counts of the indexed grams, each met by one probe in `stride`).
struct Plan {
    layout: Layout,
    windows: Vec<Option<usize>>,
    cost: f64,
}

impl Plan {
    fn of(literals: &[Vec<u8>], rarity: &Rarity, layout: Layout) -> Plan {
        let mut passes = 0u64;
        let windows = literals
            .iter()
            .map(|lit| {
                let (start, cost) = rarity.window(lit, layout.shape(lit.len())?);
                passes += u64::from(cost);
                Some(start)
            })
            .collect();
        let cost = (rarity.len as f64 * PROBE_NS + passes as f64 * PASS_NS) / layout.stride as f64;
        Plan { layout, windows, cost }
    }
}

impl Layout {
    /// The group shape a literal of `len` bytes is indexed with; `None`: too short to index.
    fn shape(&self, len: usize) -> Option<(usize, usize, usize)> {
        if len >= self.long.0 {
            Some(self.long)
        } else if len >= self.short.0 {
            Some(self.short)
        } else {
            None
        }
    }
}

impl Skim {
    /// The literals that own long-group gram `g` (tuning aid).
    pub fn literals_of(&self, g: u64) -> Vec<u32> {
        self.long.table.find(g).map(|s| self.long.table.literals(s)).unwrap_or_default()
    }

    /// How many literals own long-group gram `g`, at how many distinct offsets (tuning aid).
    pub fn owners_of(&self, g: u64) -> (usize, usize) {
        match self.long.table.find(g) {
            None => (0, 0),
            Some(s) if s.len != 0 => (1, 1),
            Some(s) => match &self.long.table.shared[s.lit as usize] {
                Owners::Few(v) => (v.len(), distinct_offsets(v).len()),
                Owners::Many(m) => (m.by_head.values().map(Vec::len).sum(), m.offs.len()),
            },
        }
    }
}

/// Positions of two bytes, found by the skim as it reads the text (see [`Skim::find_marking`]):
/// a caller that wants them (the framer's look for lines at a level, `--unknown`) is spared a
/// pass of its own over every byte.
#[derive(Debug, Clone)]
pub struct Marks {
    pub bytes: [u8; 2],
    /// Every position of one of `bytes` in the last text skimmed, ascending.
    pub at: Vec<usize>,
    /// Line breaks in the last text skimmed, as far as the vector probe read it: `lines[r]` is
    /// how many `\n` there are before byte `r * LINES_STEP`. Empty without the vector probe. The
    /// framer counts the lines it skips with it instead of a pass of its own over them.
    pub lines: Vec<u32>,
}

/// The step of [`Marks::lines`], in the vector probe's rounds: the line breaks are summed once
/// a step. Eight rounds (1 KiB): a total every round was a movemask and a POPCNT a block more,
/// and [`Marks::count_lines`] counts at most a step at each end of a range itself (0.63 M
/// instructions on the peers corpus's first 20 MB, against 1.8 M the pass saves).
pub(crate) const STEP_ROUNDS: usize = 8;

/// The step of [`Marks::lines`], in bytes.
pub const LINES_STEP: usize = simd::ROUND * STEP_ROUNDS;

impl Marks {
    pub fn new(bytes: [u8; 2]) -> Marks {
        Marks { bytes, at: Vec::new(), lines: Vec::new() }
    }

    /// Line breaks in `text[from..to]`, `text` the text last skimmed.
    pub fn count_lines(&self, text: &[u8], from: usize, to: usize) -> u64 {
        let count = |r: std::ops::Range<usize>| memchr::memchr_iter(b'\n', &text[r]).count() as u64;
        let covered = self.lines.len().saturating_sub(1) * LINES_STEP;
        // Whole steps inside the range and inside what the index covers; the ends counted.
        let (a, b) = (from.div_ceil(LINES_STEP), to.min(covered) / LINES_STEP);
        if a >= b {
            return count(from..to);
        }
        count(from..a * LINES_STEP) + u64::from(self.lines[b] - self.lines[a]) + count(b * LINES_STEP..to)
    }
}

pub struct Skim {
    long: Group,
    short: Group,
    stride: usize,
    /// The vector probe, when this CPU has it (then both groups use [`Hash::Lanes`]).
    simd: Option<simd::Avx2>,
    lits: Vec<Vec<u8>>,
    /// Ids of literals too short to index.
    pub unindexed: Vec<u32>,
}

/// The layout of the vector probe: stride 4, so the eight positions of a 32-byte block are its
/// eight 32-bit lanes and a block and the one four bytes on give every lane's 8-byte gram.
/// Stride 4 also indexes short keys by 5-byte grams, far rarer in logs than 4-byte ones.
const SIMD_LAYOUT: Layout = LAYOUTS[1];

impl Skim {
    pub fn new(literals: &[Vec<u8>], rarity: &Rarity) -> Skim {
        Skim::with_probe(literals, rarity, simd::Avx2::detect())
    }

    /// The same literals skimmed by the portable scalar probe whatever the CPU (comparisons:
    /// `examples/skim_stats.rs`, `cargo bench`).
    pub fn to_portable(&self, rarity: &Rarity) -> Skim {
        Skim::with_probe(&self.lits, rarity, None)
    }

    /// A skim with the vector probe if `simd` is given, else the scalar one.
    pub(crate) fn with_probe(literals: &[Vec<u8>], rarity: &Rarity, simd: Option<simd::Avx2>) -> Skim {
        if simd.is_some() {
            return Skim::build(literals, Plan::of(literals, rarity, SIMD_LAYOUT), Hash::Lanes, simd);
        }
        // The layout whose probes and expected passes cost least over the sample.
        let plans = LAYOUTS.map(|l| Plan::of(literals, rarity, l));
        for p in &plans {
            tracing::debug!(stride = p.layout.stride, cost = p.cost, "skim layout");
        }
        let plan = plans.into_iter().min_by(|a, b| a.cost.total_cmp(&b.cost)).expect("layouts");
        Skim::build(literals, plan, Hash::Mul64, None)
    }

    #[cfg(test)]
    fn with_layout(literals: &[Vec<u8>], rarity: &Rarity, layout: Layout, hash: Hash) -> Skim {
        Skim::build(literals, Plan::of(literals, rarity, layout), hash, None)
    }

    fn build(literals: &[Vec<u8>], plan: Plan, hash: Hash, simd: Option<simd::Avx2>) -> Skim {
        let layout = plan.layout;
        let grams =
            |min: usize, max: usize, s: usize| literals.iter().filter(|l| l.len() >= min && l.len() < max).count() * s;
        let bits =
            |n: usize| ((n.max(1).next_power_of_two().trailing_zeros()) + BITS_PER_GRAM).clamp(MIN_BITS, MAX_BITS);
        let (lg, sh) = (layout.long, layout.short);
        let extra = if hash == Hash::Lanes { LANES_EXTRA_BITS } else { 0 };
        let mut long = Group::new(lg, (bits(grams(lg.0, usize::MAX, lg.2)) + extra).min(MAX_BITS), hash);
        let mut short = Group::new(sh, (bits(grams(sh.0, lg.0, sh.2)) + SHORT_EXTRA_BITS).min(MAX_BITS), hash);
        let mut unindexed = Vec::new();
        for (id, (lit, window)) in literals.iter().zip(plan.windows).enumerate() {
            let (Some(shape), Some(best)) = (layout.shape(lit.len()), window) else {
                unindexed.push(id as u32);
                continue;
            };
            let group = if shape == lg { &mut long } else { &mut short };
            let (_, q, s) = shape;
            for t in 0..s {
                group.insert(&lit[best + t..best + t + q], lit, id as u32, best + t);
            }
        }
        long.finish();
        short.finish();
        Skim { long, short, stride: layout.stride, simd, lits: literals.to_vec(), unindexed }
    }

    /// Every occurrence of every indexed literal in `hay`, as (end, literal id), in no order.
    pub fn find(&self, hay: &[u8], out: &mut Vec<(usize, u32)>) {
        self.find_inner(hay, out, None);
    }

    /// [`Skim::find`], and every position of the marks' bytes in `hay` into `marks.at`
    /// (cleared first), ascending. The vector probe reports them from the blocks it loads; the
    /// rest of `hay` (and all of it for the scalar probe) is searched with `memchr2`.
    pub fn find_marking(&self, hay: &[u8], out: &mut Vec<(usize, u32)>, marks: &mut Marks) {
        marks.at.clear();
        marks.lines.clear();
        let p = self.find_inner(hay, out, Some(marks));
        let [a, b] = marks.bytes;
        marks.at.extend(memchr::memchr2_iter(a, b, &hay[p..]).map(|i| p + i));
    }

    /// Returns the position up to which `marks` (when given) have been found.
    fn find_inner(&self, hay: &[u8], out: &mut Vec<(usize, u32)>, marks: Option<&mut Marks>) -> usize {
        let p = match (self.simd, self.long.hash, self.stride) {
            (Some(avx2), _, _) => simd::find(avx2, self, hay, out, marks),
            (None, Hash::Mul64, 5) => self.find_with::<5>(hay, out),
            (None, Hash::Mul64, 4) => self.find_with::<4>(hay, out),
            // The lane hash without the vector probe (tests): every position by the tail loop.
            (None, Hash::Lanes, _) => 0,
            (None, _, s) => unreachable!("no layout has stride {s}"),
        };
        // The last positions, with zero-padded loads: a gram inside an occurrence ends in `hay`.
        for group in [&self.long, &self.short] {
            let mut q = p;
            while q + group.q <= hay.len() {
                let g = load(hay, q);
                if group.pass_gram(g) {
                    group.confirm(hay, q, g, &self.lits, out);
                }
                q += self.stride;
            }
        }
        if self.simd.is_some() { p } else { 0 }
    }

    /// The scalar probe loop for one stride ([`Hash::Mul64`]), compiled for it: offsets are
    /// constants. Returns the first position it did not probe.
    fn find_with<const STRIDE: usize>(&self, hay: &[u8], out: &mut Vec<(usize, u32)>) -> usize {
        let (long, short, lits) = (&self.long, &self.short, &self.lits);
        let mut p = 0;
        if hay.len() >= 8 {
            let last = hay.len() - 8;
            // Four positions per round: independent loads and bit tests overlap.
            while p + 3 * STRIDE <= last {
                let g = [load8(hay, p), load8(hay, p + STRIDE), load8(hay, p + 2 * STRIDE), load8(hay, p + 3 * STRIDE)];
                let h = g.map(|g| g.wrapping_mul(H));
                let l = [long.pass(h[0]), long.pass(h[1]), long.pass(h[2]), long.pass(h[3])];
                let sh = [short.pass(h[0]), short.pass(h[1]), short.pass(h[2]), short.pass(h[3])];
                if l.iter().chain(&sh).any(|&x| x) {
                    for k in 0..4 {
                        if l[k] {
                            long.confirm(hay, p + k * STRIDE, g[k], lits, out);
                        }
                        if sh[k] {
                            short.confirm(hay, p + k * STRIDE, g[k], lits, out);
                        }
                    }
                }
                p += 4 * STRIDE;
            }
        }
        p
    }

    /// Probe statistics over `hay`, for tuning (`examples/skim_stats.rs`); matching never
    /// calls it.
    pub fn probe_stats(&self, hay: &[u8]) -> SkimStats {
        let count = |g: &Group| g.table.grams().map(|(_, lits)| lits.len()).sum::<usize>() / self.stride;
        let mut st =
            SkimStats { long_literals: count(&self.long), short_literals: count(&self.short), ..Default::default() };
        let mut out = Vec::new();
        let mut p = 0;
        while p + 8 <= hay.len() {
            let g = load8(hay, p);
            st.probes += 1;
            if self.long.pass_gram(g) {
                st.long_passes += 1;
                if self.long.table.find(g).is_some() {
                    st.long_in_table += 1;
                    *st.top.entry(g).or_default() += 1;
                }
                self.long.confirm(hay, p, g, &self.lits, &mut out);
            }
            if self.short.pass_gram(g) {
                st.short_passes += 1;
                *st.top_short.entry(g & self.short.mask).or_default() += 1;
                self.short.confirm(hay, p, g, &self.lits, &mut out);
            }
            p += self.stride;
        }
        st.found = out.len();
        st
    }

    pub fn memory_usage(&self) -> usize {
        let table = |g: &Group| g.table.memory_usage();
        8 * (self.long.bitmap.len() + self.short.bitmap.len()) + table(&self.long) + table(&self.short)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_occurrence_exactly_once() {
        let lits: Vec<Vec<u8>> = [
            "snapshot backfill job",
            "channel closed",
            "invalid port",
            "Storage error: ",
            "aaaaaaaaaaaaaaaaaaaa",
            "tiny",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        let rarity = Rarity::default();
        for layout in LAYOUTS {
            check_layout(&lits, Skim::with_layout(&lits, &rarity, layout, Hash::Mul64));
        }
        check_layout(&lits, Skim::with_layout(&lits, &rarity, SIMD_LAYOUT, Hash::Lanes));
        if let Some(avx2) = simd::Avx2::detect() {
            check_layout(&lits, Skim::with_probe(&lits, &rarity, Some(avx2)));
        }
    }

    fn check_layout(lits: &[Vec<u8>], sk: Skim) {
        assert_eq!(sk.unindexed, vec![5]);
        for pad in 0..20 {
            for (id, lit) in lits.iter().enumerate().take(4) {
                let mut hay = vec![b'x'; pad];
                hay.extend_from_slice(lit);
                hay.extend_from_slice(b" tail\n");
                hay.extend_from_slice(lit);
                let mut out = Vec::new();
                sk.find(&hay, &mut out);
                out.sort_unstable();
                let first = pad + lit.len();
                assert_eq!(
                    out,
                    vec![(first, id as u32), (hay.len(), id as u32)],
                    "pad {pad} {:?}",
                    String::from_utf8_lossy(lit)
                );
            }
        }
        // Overlapping occurrences of a periodic literal.
        let mut out = Vec::new();
        sk.find(&[b'a'; 23], &mut out);
        out.sort_unstable();
        assert_eq!(out, vec![(20, 4), (21, 4), (22, 4), (23, 4)]);
    }

    /// A slot holds one owner whose offset and length fit 16 bits; longer literals, and grams
    /// several literals share, are held aside and found all the same.
    #[test]
    fn owners_a_slot_cannot_hold_are_found() {
        let long: Vec<u8> = (0..70_000u32).flat_map(|i| format!("{:x} ", i % 4093).into_bytes()).take(70_000).collect();
        let lits = vec![long.clone(), b"shared prefix one".to_vec(), b"shared prefix two".to_vec()];
        let mut hay = b"log: ".to_vec();
        hay.extend_from_slice(&long);
        hay.extend_from_slice(b" shared prefix two, shared prefix one\n");
        let rarity = Rarity::default();
        for probe in [None, simd::Avx2::detect()] {
            let sk = Skim::with_probe(&lits, &rarity, probe);
            assert!(sk.long.table.shared.iter().any(|o| o.literals() == [0]), "the long literal is held aside");
            let mut out = Vec::new();
            sk.find(&hay, &mut out);
            out.sort_unstable();
            let end = 5 + long.len();
            assert_eq!(out, vec![(end, 0), (end + 18, 2), (end + 37, 1)]);
        }
    }

    /// Literals cut from the text itself at (offset, length) picks, so that they occur, overlap
    /// and repeat.
    fn cut_literals(text: &str, picks: &[(usize, usize)]) -> Vec<Vec<u8>> {
        picks
            .iter()
            .filter(|&&(_, len)| len <= text.len())
            .map(|&(at, len)| {
                let at = at % (text.len() - len + 1);
                text.as_bytes()[at..at + len].to_vec()
            })
            .collect()
    }

    proptest::proptest! {
        /// Both probes, over texts long enough for several vector rounds and literals of both
        /// groups, report every occurrence once. On a CPU without AVX2 this checks the scalar probe alone.
        #[test]
        fn probes_agree_with_naive_search(
            text in "[ab \n]{0,600}",
            picks in proptest::collection::vec((0usize..600, 8usize..25), 1..8),
        ) {
            let lits = cut_literals(&text, &picks);
            let mut naive = Vec::new();
            for (id, l) in lits.iter().enumerate() {
                for end in l.len()..=text.len() {
                    if text.as_bytes()[end - l.len()..end] == l[..] {
                        naive.push((end, id as u32));
                    }
                }
            }
            naive.sort_unstable();
            let rarity = Rarity::shared();
            for probe in [None, simd::Avx2::detect()] {
                let (sk, mut out) = (Skim::with_probe(&lits, rarity, probe), Vec::new());
                sk.find(text.as_bytes(), &mut out);
                out.sort_unstable();
                proptest::prop_assert_eq!(&out, &naive, "vector probe: {}", probe.is_some());
            }
        }
    }

    proptest::proptest! {
        /// Marking changes no occurrence, and the marks are every position of the two bytes,
        /// ascending, whichever probe read the text: across vector rounds, in the tail the vector
        /// probe leaves, and at a round's last bytes.
        #[test]
        fn marks_are_every_position_of_their_bytes(
            // With bytes that share a mark's low four bits (`b`, `r`, `k`, `+`, `[`, and `Ò`
            // and `û` whose UTF-8 bytes are 0x92 and 0xbb), which the vector probe's compare
            // looks marks up by.
            text in "[abWR{\n rk+\\[ÒûK2]{0,700}",
            picks in proptest::collection::vec((0usize..700, 8usize..20), 0..4),
        ) {
            let lits = cut_literals(&text, &picks);
            let want: Vec<usize> = memchr::memchr2_iter(b'R', b'{', text.as_bytes()).collect();
            let rarity = Rarity::shared();
            for probe in [None, simd::Avx2::detect()] {
                let sk = Skim::with_probe(&lits, rarity, probe);
                let (mut plain, mut marked) = (Vec::new(), Vec::new());
                sk.find(text.as_bytes(), &mut plain);
                let mut marks = Marks::new(*b"R{");
                marks.at.push(usize::MAX); // left from an earlier text: cleared
                sk.find_marking(text.as_bytes(), &mut marked, &mut marks);
                plain.sort_unstable();
                marked.sort_unstable();
                proptest::prop_assert_eq!(&marked, &plain, "vector probe: {}", probe.is_some());
                proptest::prop_assert_eq!(&marks.at, &want, "vector probe: {}", probe.is_some());
            }
        }
    }

    /// Every byte value, at every place in a vector round, over more than two of the marks
    /// pass's chunks: only the marks' own are marked, the line breaks of any range are counted
    /// right, and marking finds the literals that finding does, across chunk edges too.
    #[test]
    fn marks_are_their_bytes_alone() {
        let mut text: Vec<u8> = Vec::new();
        for pad in 0..140 {
            text.extend(std::iter::repeat_n(b'.', pad));
            text.extend(0..=255u8);
        }
        // A literal across 4 KiB edges and the edges of the marks pass's 16 KiB chunks.
        let lit = b"across the chunk edge".to_vec();
        let edges = [4096, 8192, 16384, 32768];
        assert!(text.len() > 2 * 16384 + 1024, "{}", text.len());
        for edge in edges {
            text.splice(edge - 10..edge - 10 + lit.len(), lit.iter().copied());
        }
        let want: Vec<usize> = memchr::memchr2_iter(b'R', b'{', &text).collect();
        for probe in [None, simd::Avx2::detect()] {
            let sk = Skim::with_probe(std::slice::from_ref(&lit), Rarity::shared(), probe);
            let mut marks = Marks::new(*b"R{");
            let (mut found, mut plain) = (Vec::new(), Vec::new());
            sk.find_marking(&text, &mut found, &mut marks);
            sk.find(&text, &mut plain);
            assert_eq!(marks.at, want, "vector probe: {}", probe.is_some());
            // The line breaks of any range, counted from the index where it covers the range.
            assert_eq!(marks.lines.is_empty(), probe.is_none());
            for from in (0..text.len()).step_by(97) {
                for to in (from..=text.len()).step_by(131).chain([text.len()]) {
                    let naive = text[from..to].iter().filter(|&&b| b == b'\n').count() as u64;
                    assert_eq!(marks.count_lines(&text, from, to), naive, "{from}..{to}");
                }
            }
            found.sort_unstable();
            assert_eq!(found, plain);
            assert_eq!(found, edges.map(|e| (e - 10 + lit.len(), 0)).to_vec());
        }
    }

    /// Words common in the input and not in the sample are avoided once the input is learnt
    /// from: the window moves off them, and the skim still finds every occurrence.
    #[test]
    fn learning_from_the_input_moves_windows_not_matches() {
        let lit = b"xqzv wobble jkrt frob vlax quib".to_vec();
        let shape = SIMD_LAYOUT.shape(lit.len()).expect("indexed");
        let plain = Rarity::default();
        let before = plain.window(&lit, shape).0;
        // The input says the words of that window often, in other messages.
        let words = &lit[before.saturating_sub(2)..(before + 13).min(lit.len())];
        let input = [b"2026-03-02T08:00:00Z  INFO ", words, b", waiting\n"].concat().repeat(4000);
        let learnt = Rarity::with_input(&input);
        let after = learnt.window(&lit, shape).0;
        assert_ne!(after, before, "{:?}", String::from_utf8_lossy(words));
        assert_eq!(learnt.len, SAMPLE.len() + INPUT_SAMPLE.min(input.len()));
        let lits = vec![lit.clone(), b"channel closed".to_vec()];
        let mut hay = input[..4096].to_vec();
        hay.extend_from_slice(&lit);
        hay.extend_from_slice(b" channel closed\n");
        for rarity in [&plain, &learnt] {
            for probe in [None, simd::Avx2::detect()] {
                let (sk, mut out) = (Skim::with_probe(&lits, rarity, probe), Vec::new());
                sk.find(&hay, &mut out);
                out.sort_unstable();
                let end = 4096 + lit.len();
                assert_eq!(out, vec![(end, 0), (end + 15, 1)]);
            }
        }
    }

    /// The layout is chosen by the expected cost over the sample: the real catalog's few short
    /// keys keep stride 5; many short keys made of words common in logs (whose 4-byte grams pass
    /// often) take stride 4 and 5-byte grams.
    #[test]
    fn layout_follows_the_catalog() {
        let rarity = Rarity::default();
        let real: Vec<Vec<u8>> =
            (0..4000).map(|i| format!("table {i} snapshot backfill job failed").into_bytes()).collect();
        assert_eq!(Skim::with_probe(&real, &rarity, None).stride, 5);
        let words = ["barrier ", "compaction ", "actor id ", "fragment ", "epoch is ", "worker node"];
        let short: Vec<Vec<u8>> = (0..400).map(|i| words[i % words.len()].as_bytes().to_vec()).collect();
        assert_eq!(Skim::with_probe(&short, &rarity, None).stride, 4);
    }
}
