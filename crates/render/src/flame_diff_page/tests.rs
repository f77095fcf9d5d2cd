use super::*;

#[test]
fn means_that_differ_only_in_their_last_bits_are_unchanged() {
    // 0.1 + 0.2 and 0.3: one mean summed in another order.
    let noisy = Change {
        old: 0.1 + 0.2,
        new: 0.3,
    };
    assert_eq!(noisy.tag().mark(), "[−]", "as computed");
    assert_eq!(as_shown(noisy).tag().mark(), "[=]", "as shown");
    let real = Change {
        old: 100.0,
        new: 100.5,
    };
    assert_eq!(as_shown(real).tag().mark(), "[+]");
    assert_eq!(colour_class(as_shown(noisy)), "d0");
}
