//! A folded file parsed as it is read gives the profile its bytes give
//! read whole, whatever the chunk size and however the reads fall; a file
//! that is not UTF-8, or whose reading fails, says so.

use super::*;
use crate::{Format, Input};

/// Real files: py-spy's `name (file:line)` frames (the line fold's
/// weights), and perf's collapsed output with kernel (`_[k]`) leaves.
fn real_files() -> Vec<(&'static str, Vec<u8>)> {
    let at = |path: &str| format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
    let read = |path: String| std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    vec![
        (
            "py-spy",
            read(at(
                "sample-data/python-markdown/3.5.2/convert-basic.1.folded",
            )),
        ),
        (
            "perf",
            read(at(
                "../shared/corpus/speedscope/stackcollapse/perf-vertx-stacks-01-collapsed-all.txt",
            )),
        ),
    ]
}

fn read_whole(bytes: &[u8]) -> Parsed {
    super::super::Folded
        .parse(&Input {
            file_name: "x.folded",
            bytes,
        })
        .unwrap()
}

/// A file that hands out its bytes a few at a time (1 to 13, in turn),
/// and fails at `fail_at` when given.
struct Trickle<'a> {
    bytes: &'a [u8],
    at: usize,
    reads: usize,
    fail_at: Option<usize>,
}

impl<'a> Trickle<'a> {
    fn new(bytes: &'a [u8]) -> Trickle<'a> {
        Trickle {
            bytes,
            at: 0,
            reads: 0,
            fail_at: None,
        }
    }
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.fail_at.is_some_and(|at| self.at >= at) {
            return Err(std::io::Error::other("the disk went away"));
        }
        self.reads += 1;
        let n = (1 + self.reads % 13)
            .min(buf.len())
            .min(self.bytes.len() - self.at);
        buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn streamed(size: usize, source: &mut (dyn Read + Send), len: usize) -> Parsed {
    parse_in_chunks_of(size, source, len as u64).unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn real_profiles_read_as_they_stream_are_the_profiles_read_whole() {
    for (name, bytes) in real_files() {
        assert!(streams(&bytes[..4096]), "{name}");
        let whole = format!("{:?}", read_whole(&bytes));
        for size in [1, 100, 4096, 65_536, bytes.len()] {
            let mut file = &bytes[..];
            let read = streamed(size, &mut file, bytes.len());
            assert_eq!(format!("{read:?}"), whole, "{name} in chunks of {size}");
        }
        let read = streamed(1000, &mut Trickle::new(&bytes), bytes.len());
        assert_eq!(
            format!("{read:?}"),
            whole,
            "{name} read a few bytes at a time"
        );
    }
}

#[test]
fn bad_lines_are_reported_at_their_line_in_the_file() {
    let mut text = String::new();
    for i in 0..2_000 {
        text.push_str(&format!("main;f{};g{} {}\n", i % 17, i % 5, 1 + i % 3));
        if i % 700 == 0 {
            text.push_str("not a count\n");
        }
    }
    let whole = read_whole(text.as_bytes());
    let places = |p: &Parsed| {
        p.warnings
            .iter()
            .map(|w| w.place.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(places(&whole).len(), 3);
    let read = streamed(1000, &mut text.as_bytes(), text.len());
    assert_eq!(places(&read), places(&whole));
    assert_eq!(format!("{read:?}"), format!("{whole:?}"));
}

/// A line longer than many chunks, and a last line without a newline.
#[test]
fn a_line_longer_than_a_chunk_and_an_unended_last_line_are_read_whole() {
    let deep: Vec<String> = (0..3_000).map(|i| format!("frame{i}")).collect();
    let text = format!("main;a 1\n{} 7\nmain;b 2\nmain;a 3", deep.join(";"));
    let whole = format!("{:?}", read_whole(text.as_bytes()));
    for size in [10, 1000, 5000] {
        let read = streamed(size, &mut text.as_bytes(), text.len());
        assert_eq!(format!("{read:?}"), whole, "chunks of {size}");
    }
}

#[test]
fn a_file_that_is_not_utf8_past_its_start_is_left_to_be_read_whole() {
    let mut bytes = Vec::new();
    for i in 0..500 {
        bytes.extend(format!("main;f{} {}\n", i % 7, i + 1).bytes());
    }
    bytes.extend(b"main;caf\xe9 1\n");
    bytes.extend(b"main;g 1\n".repeat(200));
    let Err(e) = parse_in_chunks_of(256, &mut &bytes[..], bytes.len() as u64) else {
        panic!("read invalid UTF-8")
    };
    assert!(matches!(e, Unstreamed::NotUtf8), "{e:?}");
}

#[test]
fn a_read_that_fails_is_an_error_not_a_shorter_profile() {
    let text = "main;f 1\n".repeat(1000);
    let mut source = Trickle::new(text.as_bytes());
    source.fail_at = Some(5000);
    let Err(e) = parse_in_chunks_of(512, &mut source, text.len() as u64) else {
        panic!("a failed read gave a profile")
    };
    assert!(
        matches!(&e, Unstreamed::Io(e) if e.to_string() == "the disk went away"),
        "{e:?}"
    );
}

#[test]
fn a_file_without_stacks_says_so() {
    let text = "# nothing here\n".repeat(100);
    let Err(Unstreamed::Parse(e)) = parse_in_chunks_of(64, &mut text.as_bytes(), 1500) else {
        panic!("read a file without stacks")
    };
    let whole = super::super::Folded.parse(&Input {
        file_name: "x.folded",
        bytes: text.as_bytes(),
    });
    assert_eq!(Some(e.message), whole.err().map(|e| e.message));
}

#[test]
fn only_plain_text_whose_first_lines_rule_out_allocations_streams() {
    assert!(streams(b"main;work 1\nmain;rest 2\n"));
    // The last line is cut: only complete lines count.
    assert!(!streams(b"main;work"));
    assert!(!streams(b"\xef\xbb\xbfmain;work 1\n"));
    assert!(!streams(b"main;caf\xe9 1\n"));
    // async-profiler allocation output so far: decided over the whole
    // file, which is then read whole.
    let alloc = b"java/lang/Thread.run;Foo.bar;java.lang.String_[i] 12\n";
    assert!(!streams(alloc));
    // A leaf that is not a class rules it out whatever follows.
    assert!(streams(
        b"java/lang/Thread.run;Foo.bar;java.lang.String_[i] 12\nmain;do_syscall_64_[k] 1\n"
    ));
}
