#[global_allocator]
static A: mimalloc::MiMalloc = mimalloc::MiMalloc;
fn main() {
    let input = std::fs::read("/tmp/small2m.log").unwrap();
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let r = annotail::matcher::skim::Rarity::default();
        let a = t.elapsed();
        let t = std::time::Instant::now();
        let r2 = annotail::matcher::skim::Rarity::with_input(&input);
        let b = t.elapsed();
        println!("default {:.1} ms, with 1 MiB input {:.1} ms", a.as_secs_f64() * 1e3, b.as_secs_f64() * 1e3);
        std::hint::black_box((r, r2));
    }
}
