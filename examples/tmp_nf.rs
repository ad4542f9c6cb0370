fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let paths: Vec<std::path::PathBuf> = args.iter().map(Into::into).collect();
    let (m, _) = annotail::matcher::Matcher::new(annotail::catalog::load(&paths), Default::default());
    for e in &m.entries {
        if e.key.as_deref() == Some(b" not found") {
            println!(
                "single_line={} seq={} {:?}",
                e.single_line,
                e.seq.is_some(),
                e.rec.pattern.as_deref().unwrap_or("").chars().take(100).collect::<String>()
            );
        }
    }
}
