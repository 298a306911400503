//! The Aho-Corasick automaton shared by the backends: a trie of the case-folded patterns,
//! its failure links, and the flattened output list of every state.
//!
//! States are renumbered after construction so that every state with an output has an id
//! at or above [`Nfa::match_min`]: a backend tells "this state reports" from the id alone,
//! which is how the match flag is folded into the state id (Kargus §4.5).

use crate::pattern::{Pattern, FOLD};
use crate::{BuildError, Limits};
use std::collections::VecDeque;

/// The automaton, states numbered root first, then non-matching, then matching states.
#[derive(Debug)]
pub(crate) struct Nfa {
    /// Goto transitions of each state over the folded alphabet, sorted by byte.
    pub gotos: Vec<Vec<(u8, u32)>>,
    /// Failure link of each state (the root's is itself).
    pub fail: Vec<u32>,
    /// States in breadth-first order (a state's failure target comes before it).
    pub bfs: Vec<u32>,
    /// First matching state id.
    pub match_min: u32,
    /// `outputs[out_offsets[s - match_min]..out_offsets[s - match_min + 1]]` are the
    /// pattern indices reported in matching state `s`.
    pub out_offsets: Vec<u32>,
    /// Pattern indices (positions in the input pattern list).
    pub outputs: Vec<u32>,
}

impl Nfa {
    /// Number of states.
    pub fn num_states(&self) -> usize {
        self.fail.len()
    }

    /// Build from validated patterns within `limits`.
    pub fn build(patterns: &[Pattern], limits: &Limits) -> Result<Nfa, BuildError> {
        let mut total: usize = 1;
        for p in patterns {
            if p.bytes.is_empty() {
                return Err(BuildError::EmptyPattern { id: p.id });
            }
            total = total.saturating_add(p.bytes.len());
        }
        if total > u32::MAX as usize / 2 {
            return Err(BuildError::TooManyStates {
                states: total,
                limit: u32::MAX as usize / 2,
            });
        }

        // 1. Trie over folded bytes (old ids, creation order).
        let mut gotos: Vec<Vec<(u8, u32)>> = vec![Vec::new()];
        let mut root = [0u32; 256];
        let mut ends: Vec<(u32, u32)> = Vec::with_capacity(patterns.len());
        for (index, p) in patterns.iter().enumerate() {
            let mut s = 0u32;
            for &b in &p.bytes {
                let c = FOLD[b as usize];
                let next = if s == 0 {
                    root[c as usize]
                } else {
                    find(&gotos[s as usize], c)
                };
                s = if next != 0 {
                    next
                } else {
                    let n = gotos.len() as u32;
                    if gotos.len() >= limits.max_states {
                        // Checked while growing: a huge set fails before it fills memory.
                        return Err(BuildError::TooManyStates {
                            states: gotos.len() + 1,
                            limit: limits.max_states,
                        });
                    }
                    gotos.push(Vec::new());
                    let row = &mut gotos[s as usize];
                    let at = row.partition_point(|&(x, _)| x < c);
                    row.insert(at, (c, n));
                    if s == 0 {
                        root[c as usize] = n;
                    }
                    n
                };
            }
            ends.push((s, index as u32));
        }
        let n = gotos.len();
        ends.sort_unstable();

        // 2. Failure links in breadth-first order.
        let mut fail = vec![0u32; n];
        let mut bfs = Vec::with_capacity(n);
        let mut queue = VecDeque::with_capacity(256);
        queue.push_back(0u32);
        while let Some(u) = queue.pop_front() {
            bfs.push(u);
            for &(c, v) in &gotos[u as usize] {
                queue.push_back(v);
                if u == 0 {
                    continue;
                }
                let mut f = fail[u as usize];
                fail[v as usize] = loop {
                    let t = if f == 0 {
                        root[c as usize]
                    } else {
                        find(&gotos[f as usize], c)
                    };
                    if t != 0 {
                        break t;
                    }
                    if f == 0 {
                        break 0;
                    }
                    f = fail[f as usize];
                };
            }
        }

        // 3. Output lists: own patterns, then the failure target's list (BFS order ensures
        // the target's list is complete). Counted against the memory limit as they grow.
        let mut own_start = vec![u32::MAX; n];
        for (i, &(s, _)) in ends.iter().enumerate().rev() {
            own_start[s as usize] = i as u32;
        }
        let mut out_span: Vec<(u32, u32)> = vec![(0, 0); n]; // into `flat`
        let mut flat: Vec<u32> = Vec::new();
        for &u in &bfs {
            let start = flat.len();
            let mut i = own_start[u as usize] as usize;
            while i < ends.len() && ends[i].0 == u {
                flat.push(ends[i].1);
                i += 1;
            }
            if u != 0 {
                let (a, b) = out_span[fail[u as usize] as usize];
                flat.extend_from_within(a as usize..b as usize);
            }
            if flat.len().saturating_mul(4) > limits.memory || flat.len() > u32::MAX as usize {
                return Err(BuildError::TooLarge {
                    bytes: flat.len() * 4,
                    limit: limits.memory,
                });
            }
            out_span[u as usize] = (start as u32, flat.len() as u32);
        }

        // 4. Renumber: non-matching states first (root stays 0), matching ones last.
        let mut new_id = vec![0u32; n];
        let mut next = 0u32;
        for &u in &bfs {
            if out_span[u as usize].0 == out_span[u as usize].1 {
                new_id[u as usize] = next;
                next += 1;
            }
        }
        let match_min = next;
        for &u in &bfs {
            if out_span[u as usize].0 != out_span[u as usize].1 {
                new_id[u as usize] = next;
                next += 1;
            }
        }
        let mut new_gotos = vec![Vec::new(); n];
        let mut new_fail = vec![0u32; n];
        for (old, row) in gotos.into_iter().enumerate() {
            let id = new_id[old] as usize;
            new_gotos[id] = row
                .into_iter()
                .map(|(c, v)| (c, new_id[v as usize]))
                .collect();
            new_fail[id] = new_id[fail[old] as usize];
        }
        let new_bfs: Vec<u32> = bfs.iter().map(|&u| new_id[u as usize]).collect();
        let mut out_offsets = Vec::with_capacity(n - match_min as usize + 1);
        let mut outputs = Vec::with_capacity(flat.len());
        out_offsets.push(0u32);
        for &u in bfs
            .iter()
            .filter(|&&u| out_span[u as usize].0 != out_span[u as usize].1)
        {
            let (a, b) = out_span[u as usize];
            outputs.extend_from_slice(&flat[a as usize..b as usize]);
            out_offsets.push(outputs.len() as u32);
        }
        // The matching states were numbered in BFS order too, so `out_offsets` is indexed
        // by `id - match_min`.
        Ok(Nfa {
            gotos: new_gotos,
            fail: new_fail,
            bfs: new_bfs,
            match_min,
            out_offsets,
            outputs,
        })
    }
}

/// The goto target of `c` in a sorted sparse row, 0 if none.
#[inline]
fn find(row: &[(u8, u32)], c: u8) -> u32 {
    match row.len() {
        0 => 0,
        1 => {
            if row[0].0 == c {
                row[0].1
            } else {
                0
            }
        }
        _ => row
            .binary_search_by_key(&c, |&(x, _)| x)
            .map_or(0, |i| row[i].1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nfa(pats: &[&[u8]]) -> Nfa {
        let pats: Vec<Pattern> = pats
            .iter()
            .enumerate()
            .map(|(i, p)| Pattern::new(p.to_vec(), i as u32))
            .collect();
        Nfa::build(&pats, &Limits::default()).unwrap()
    }

    #[test]
    fn textbook_he_she_his_hers() {
        let a = nfa(&[b"he", b"she", b"his", b"hers"]);
        // root, h, he, hi, his, her, hers, s, sh, she
        assert_eq!(a.num_states(), 10);
        // matching states: he, she, his, hers
        assert_eq!(a.match_min, 6);
        // "she" reports she and he.
        let lists: Vec<Vec<u32>> = a
            .out_offsets
            .windows(2)
            .map(|w| a.outputs[w[0] as usize..w[1] as usize].to_vec())
            .collect();
        assert!(lists.contains(&vec![1, 0]));
        assert_eq!(lists.len(), 4);
        // Failure links point to shallower states, BFS puts them first.
        let pos: Vec<usize> = {
            let mut p = vec![0; a.num_states()];
            for (i, &s) in a.bfs.iter().enumerate() {
                p[s as usize] = i;
            }
            p
        };
        for s in 1..a.num_states() {
            assert!(pos[a.fail[s] as usize] < pos[s]);
        }
    }

    #[test]
    fn limits_are_errors() {
        let pats = vec![Pattern::new(vec![b'x'; 1000], 1)];
        let limits = Limits {
            max_states: 100,
            memory: 1 << 30,
        };
        assert!(matches!(
            Nfa::build(&pats, &limits),
            Err(BuildError::TooManyStates { .. })
        ));
        let empty = vec![Pattern::new(Vec::new(), 7)];
        assert_eq!(
            Nfa::build(&empty, &Limits::default()).unwrap_err(),
            BuildError::EmptyPattern { id: 7 }
        );
    }
}
