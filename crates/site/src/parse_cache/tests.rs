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
