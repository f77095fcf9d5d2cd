//! Cache keys follow the file's bytes and name.

use super::*;

#[test]
fn keys_change_with_the_bytes_and_the_name() {
    let a = Cache::key_of("x.folded", "x.folded", b"main 1\n");
    assert_eq!(a, Cache::key_of("x.folded", "x.folded", b"main 1\n"));
    assert_ne!(a, Cache::key_of("x.folded", "x.folded", b"main 2\n"));
    assert_ne!(a, Cache::key_of("y.folded", "y.folded", b"main 1\n"));
    // The parts are length-prefixed: moving a character across the
    // boundary between them is another key.
    assert_ne!(Cache::key_of("ab", "c", b""), Cache::key_of("a", "bc", b""));
    let streamed = Cache::key_of_stream("x.folded", "x.folded", &b"main 1\n"[..]).unwrap();
    assert_eq!(streamed, a);
}

#[test]
fn a_file_hashed_in_pieces_has_the_key_it_has_when_streamed() {
    // Three pieces and a bit, with a byte changed in the last: keys follow
    // every piece, and reading the file as a stream gives the same key.
    let mut bytes: Vec<u8> = (0..3 * KEY_PIECE + 1000).map(|i| (i % 251) as u8).collect();
    let key = Cache::key_of("big.folded", "big.folded", &bytes);
    let streamed = Cache::key_of_stream("big.folded", "big.folded", &bytes[..]).unwrap();
    assert_eq!(streamed, key);
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    assert_ne!(Cache::key_of("big.folded", "big.folded", &bytes), key);
    bytes[last] ^= 1;
    bytes[KEY_PIECE] ^= 1;
    assert_ne!(Cache::key_of("big.folded", "big.folded", &bytes), key);
    // A file one piece long and one a byte longer differ.
    let piece = vec![7u8; KEY_PIECE];
    let mut longer = piece.clone();
    longer.push(7);
    assert_ne!(
        Cache::key_of("a", "a", &piece),
        Cache::key_of("a", "a", &longer)
    );
}

/// A big file parsed as it is read is keyed as its bytes pass, in
/// whatever parts its reads give: the key of its bytes read whole.
#[test]
fn a_key_computed_as_the_bytes_pass_is_the_whole_bytes_key() {
    let bytes: Vec<u8> = (0..2 * KEY_PIECE + 777).map(|i| (i % 253) as u8).collect();
    let whole = Cache::key_of("1.0/cpu.folded", "cpu.folded", &bytes);
    let cache = Cache::disabled();
    for parts in [
        vec![1, 7, KEY_PIECE - 8, KEY_PIECE, 5],
        vec![KEY_PIECE, KEY_PIECE, 777],
        vec![3 * KEY_PIECE],
    ] {
        let mut hasher = cache.key_hasher("1.0/cpu.folded", "cpu.folded").unwrap();
        let mut rest = &bytes[..];
        for n in parts.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (now, later) = rest.split_at((*n).min(rest.len()));
            hasher.update(now);
            rest = later;
        }
        assert_eq!(hasher.finish(), whole, "in parts of {parts:?}");
    }
    let mut hasher = cache.key_hasher("1.0/cpu.folded", "cpu.folded").unwrap();
    hasher.update(&bytes[1..]);
    assert_ne!(hasher.finish(), whole);
}
