//! Filler payloads: random bytes or text that looks like HTML or JSON.

use crate::rng::Rng;

const HTML_WORDS: &[&str] = &[
    "<div class=\"item\">",
    "</div>",
    "<p>",
    "</p>",
    "<a href=\"/page\">",
    "</a>",
    "<span>",
    "</span>",
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "lazy",
    "dog",
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "news",
    "update",
    "price",
    "contact",
    "\n",
];

const JSON_KEYS: &[&str] = &[
    "id", "name", "value", "items", "count", "status", "price", "user", "tags", "ok",
];

/// `n` bytes of HTML-like text.
pub fn text(rng: &mut Rng, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 32);
    while out.len() < n {
        out.extend_from_slice(rng.pick(HTML_WORDS).as_bytes());
        out.push(b' ');
    }
    out.truncate(n);
    out
}

/// `n` bytes of JSON-like text.
pub fn json(rng: &mut Rng, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 32);
    out.push(b'{');
    while out.len() < n {
        let k = rng.pick(JSON_KEYS);
        out.extend_from_slice(format!("\"{k}\":{},", rng.below(100_000)).as_bytes());
    }
    out.truncate(n);
    out
}

/// `n` random bytes.
pub fn random(rng: &mut Rng, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        out.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    out.truncate(n);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_exact() {
        let mut r = Rng::new(1);
        for n in [0, 1, 7, 100, 3000] {
            assert_eq!(text(&mut r, n).len(), n);
            assert_eq!(json(&mut r, n).len(), n);
            assert_eq!(random(&mut r, n).len(), n);
        }
        assert!(text(&mut r, 200).is_ascii());
    }
}
