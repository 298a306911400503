//! IP reputation (`iprep:<side>,<category>,<op>,<value>`): each case writes a
//! reputation file of its own (`iprep-<case>.list`: the client, the server, the case's
//! network as a CIDR block, with scores in 0..=127 at their edges) and the shared
//! categories file (`oracle::IPREP_CATEGORIES`), which the oracle hands to both engines
//! with every reputation file of the batch (`oracle::include_yaml`). Rules on a UDP
//! exchange: every side (`src`, `dst`, `any`, `both`), every operator (`>`, `<`, `=`),
//! values at the score and one off, and forms Suricata refuses (an unknown category or
//! side, a value past 127, a missing part).

use super::{base, Family, Gen};
use crate::case::{Addrs, Intent, Spec, L4};
use crate::flows::Flow;
use crate::oracle::{IPREP_CATEGORIES, IPREP_FILES};

/// IP reputation rules.
pub const IPREP: Family = Family {
    name: "iprep",
    keywords: &["iprep"],
    weight: 1,
    make: iprep,
};

/// The categories file every case writes (the same bytes).
const CATEGORIES: &str =
    "1,DtBad,difftest bad hosts\n2,DtGood,difftest good hosts\n3,DtScan,difftest scanners\n";

fn iprep(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let hit = intent == Intent::Hit;
    let v6 = g.v6();
    let a = Addrs::of(g.index, v6);
    let cat = g.pick(&[(1u8, "DtBad"), (2, "DtGood"), (3, "DtScan")]);
    let score = |g: &mut Gen<'_>| g.pick(&[0u8, 1, 50, 126, 127]);
    let (cs, ss) = (score(g), score(g));
    // The client and the server listed with the case's category (or the server with
    // another one), now and then only the case's network as a block.
    let mut list = String::new();
    let block = g.chance(0.2);
    if block {
        list.push_str(&format!("{}/{},{},{cs}\n", a.net, a.net_bits(), cat.0));
    } else {
        if g.chance(0.85) {
            list.push_str(&format!("{},{},{cs}\n", a.client, cat.0));
        }
        let scat = if g.chance(0.15) { cat.0 % 3 + 1 } else { cat.0 };
        list.push_str(&format!("{},{scat},{ss}\n", a.server, scat = scat));
    }
    let side = g.pick(&["src", "dst", "any", "both", "src", "dst"]);
    let op = g.pick(&[">", "<", "="]);
    // A value next to the score the side sees, so that it holds or not as intended
    // where the lists allow.
    let seen = if side == "dst" { ss } else { cs };
    let holds = |v: i64| match op {
        ">" => i64::from(seen) > v,
        "<" => i64::from(seen) < v,
        _ => i64::from(seen) == v,
    };
    let cands = [i64::from(seen), i64::from(seen) - 1, i64::from(seen) + 1];
    let fitting: Vec<i64> = cands.iter().copied().filter(|&v| holds(v) == hit).collect();
    let mut value = if fitting.is_empty() {
        g.pick(&cands)
    } else {
        g.pick(&fitting)
    };
    let mut category = cat.1.to_string();
    let mut side_s = side.to_string();
    match g.size(0, 24) {
        0 => category = "DtNone".into(),
        1 => side_s = "source".into(),
        2 => value = 128,
        3 => category = category.to_ascii_uppercase(),
        4 => side_s = side_s.to_ascii_uppercase(),
        _ => {}
    }
    let opt = if g.chance(0.03) {
        format!("iprep:{side_s},{category},{op};")
    } else if g.chance(0.1) {
        format!("iprep: {side_s} , {category} , {op} , {value};")
    } else {
        format!("iprep:{side_s},{category},{op},{value};")
    };
    let mut f = Flow::new(g.index, v6, 7000 + (g.index % 1000) as u16);
    f.udp(true, b"iprep-request");
    f.udp(false, b"iprep-reply");
    let mut s = base(side, intent, v6, L4::Udp, g.pick(&["udp", "ip"]));
    s.opts = opt;
    s.files = vec![
        (IPREP_CATEGORIES.to_string(), CATEGORIES.as_bytes().to_vec()),
        (
            format!("{}{}{}", IPREP_FILES.0, g.index, IPREP_FILES.1),
            list.into_bytes(),
        ),
    ];
    s.script = Some(f.frames);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_case_writes_its_list_and_the_shared_categories() {
        let mut rng = gen::rng::Rng::new(13);
        let mut ok = 0;
        for index in 0..200 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = iprep(&mut g);
            assert_eq!(s.files[0].1, CATEGORIES.as_bytes());
            assert_eq!(s.files[1].0, format!("iprep-{index}.list"));
            let c = crate::case::Case {
                index,
                addrs: Addrs::of(index, s.v6),
                spec: s,
            };
            ok += usize::from(rules::parse_rule(&c.rule()).is_ok());
        }
        assert!(ok > 150, "{ok}");
    }
}
