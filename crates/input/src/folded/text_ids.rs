//! Frame text → id within one chunk of folded stacks, the lookup every
//! frame of every stack makes: the texts are copied one after another
//! into one arena, and the table holds each text's place in it and its
//! id, 12 bytes an entry. Keys as boxed strings were twice the memory,
//! spread over the heap: on a big profile (20,000 names a chunk) the
//! table and its keys no longer stayed in the core's cache while the
//! chunk streamed through it, and comparing a text with its key missed.
//! Being copies, they outlive the chunk's bytes, which a file read a chunk
//! at a time reuses for the next chunk.

use hashbrown::HashTable;
use model::FrameId;

#[derive(Default)]
pub(super) struct TextIds {
    /// (start, length) of a text in `arena`, and its id.
    table: HashTable<(u32, u32, FrameId)>,
    arena: String,
}

fn hash(bytes: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(bytes)
}

impl TextIds {
    /// The id of `text`, when it has one.
    pub(super) fn get(&self, text: &str) -> Option<FrameId> {
        let arena = self.arena.as_bytes();
        self.table
            .find(hash(text.as_bytes()), |&(start, len, _)| {
                len as usize == text.len()
                    && &arena[start as usize..(start + len) as usize] == text.as_bytes()
            })
            .map(|&(_, _, id)| id)
    }

    /// Gives `text` (which has no id yet) the id `id`; where its copy is
    /// kept ([`TextIds::text`]). The texts are distinct texts of one file,
    /// whose size is below the input limit (2 GiB): their copies fit
    /// 32-bit places.
    pub(super) fn insert(&mut self, text: &str, id: FrameId) -> Span {
        let span = Span::push(&mut self.arena, text);
        let start = span.start;
        let arena = self.arena.as_bytes();
        let rehash = |&(start, len, _): &(u32, u32, FrameId)| {
            hash(&arena[start as usize..(start + len) as usize])
        };
        self.table.insert_unique(
            hash(text.as_bytes()),
            (start, text.len() as u32, id),
            rehash,
        );
        span
    }

    /// The copy of a text [`TextIds::insert`] kept at `span`.
    pub(super) fn text(&self, span: Span) -> &str {
        span.of(&self.arena)
    }
}

/// Where a text is in an arena of texts (a `String` they are pushed to).
#[derive(Debug, Clone, Copy)]
pub(super) struct Span {
    start: u32,
    len: u32,
}

impl Span {
    /// `text` pushed to `arena`, and where it is there.
    pub(super) fn push(arena: &mut String, text: &str) -> Span {
        let span = Span {
            start: arena.len() as u32,
            len: text.len() as u32,
        };
        arena.push_str(text);
        span
    }

    /// The text at this place in `arena` (the arena it was pushed to).
    pub(super) fn of(self, arena: &str) -> &str {
        let start = self.start as usize;
        arena
            .get(start..start + self.len as usize)
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts that are prefixes of one another, and enough of them that the
    /// table grows (rehashing from the arena) many times.
    #[test]
    fn every_text_finds_its_own_id_and_no_other() {
        let texts: Vec<String> = (0..50_000)
            .map(|i| format!("ns{}::C{}::m{}", i % 7, i, "x".repeat(i % 5)))
            .chain(["a", "ab", "abc", "ns0::C0::"].map(String::from))
            .collect();
        let mut ids = TextIds::default();
        for (i, t) in texts.iter().enumerate() {
            assert_eq!(ids.get(t), None, "{t} before it is added");
            ids.insert(t, FrameId(i as u32));
        }
        for (i, t) in texts.iter().enumerate() {
            assert_eq!(ids.get(t), Some(FrameId(i as u32)), "{t}");
        }
        assert_eq!(ids.get("abcd"), None);
        assert_eq!(ids.get("ns0::C0::mx"), None);
    }
}
