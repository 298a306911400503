//! `tag`: which later packets an alert of the rule marks for logging (the flow's, or a
//! host's), for how long, typed at parse time.

use std::fmt;

/// Packets Suricata tags when a `tag` gives no count (for both scopes).
pub const DEFAULT_COUNT: u32 = 256;

/// What a tag follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TagScope {
    /// `session`: the packets of the alert's flow.
    Session,
    /// `host`: every packet to or from one address of the alert's packet.
    Host,
}

/// What a tag's count counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TagMetric {
    /// `packets`
    Packets,
    /// `bytes` (whole captured packets)
    Bytes,
    /// `seconds` since the alert
    Seconds,
}

/// Which address of the alert's packet a host tag follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TagDir {
    /// `src`
    Src,
    /// `dst` (the default)
    Dst,
}

/// One `tag` option: `tag:<scope>[,<count>,<metric>[,<direction>]]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tag {
    /// Flow or host.
    pub scope: TagScope,
    /// How many packets, bytes or seconds.
    pub count: u32,
    /// What `count` counts.
    pub metric: TagMetric,
    /// The host followed (host tags; `Dst` for session tags, where it is unused).
    pub dir: TagDir,
    /// Whether the rule gave the count and metric (printing keeps the rule's form).
    pub explicit: bool,
}

impl Tag {
    /// Parses a `tag` value; the message says what is wrong.
    pub fn parse(val: &str) -> Result<Tag, String> {
        let parts: Vec<&str> = val.split(',').map(str::trim).collect();
        let scope = match parts[0] {
            "session" => TagScope::Session,
            "host" => TagScope::Host,
            other => return Err(format!("tag type must be session or host, not '{other}'")),
        };
        let mut tag = Tag {
            scope,
            count: DEFAULT_COUNT,
            metric: TagMetric::Packets,
            dir: TagDir::Dst,
            explicit: false,
        };
        match parts.len() {
            1 => return Ok(tag),
            3 | 4 => {}
            _ => return Err("tag takes a type, then a count and a metric".into()),
        }
        tag.count = parts[1]
            .parse()
            .map_err(|_| format!("tag count '{}' is not a number", parts[1]))?;
        tag.metric = match parts[2] {
            "packets" => TagMetric::Packets,
            "bytes" => TagMetric::Bytes,
            "seconds" => TagMetric::Seconds,
            other => {
                return Err(format!(
                    "tag metric must be packets, bytes or seconds, not '{other}'"
                ))
            }
        };
        tag.explicit = true;
        if let Some(d) = parts.get(3) {
            if scope != TagScope::Host {
                return Err("a tag direction is for host tags only".into());
            }
            tag.dir = match *d {
                "src" => TagDir::Src,
                "dst" => TagDir::Dst,
                other => return Err(format!("tag direction must be src or dst, not '{other}'")),
            };
        }
        Ok(tag)
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.scope {
            TagScope::Session => "session",
            TagScope::Host => "host",
        })?;
        if !self.explicit {
            return Ok(());
        }
        let metric = match self.metric {
            TagMetric::Packets => "packets",
            TagMetric::Bytes => "bytes",
            TagMetric::Seconds => "seconds",
        };
        write!(f, ",{},{metric}", self.count)?;
        if self.scope == TagScope::Host {
            f.write_str(match self.dir {
                TagDir::Src => ",src",
                TagDir::Dst => ",dst",
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_and_defaults() {
        let t = Tag::parse("session").unwrap();
        assert_eq!(
            (t.scope, t.count, t.metric),
            (TagScope::Session, 256, TagMetric::Packets)
        );
        let t = Tag::parse("host").unwrap();
        assert_eq!((t.count, t.dir), (256, TagDir::Dst));
        let t = Tag::parse("host, 100, packets, src").unwrap();
        assert_eq!(
            (t.count, t.metric, t.dir),
            (100, TagMetric::Packets, TagDir::Src)
        );
        let t = Tag::parse("session,300,seconds").unwrap();
        assert_eq!((t.count, t.metric), (300, TagMetric::Seconds));
        assert_eq!(t.to_string(), "session,300,seconds");
        assert_eq!(
            Tag::parse("host,10,bytes").unwrap().to_string(),
            "host,10,bytes,dst"
        );
    }

    #[test]
    fn bad_values_are_refused() {
        for bad in [
            "flow",
            "session,10",
            "session,x,packets",
            "session,10,frames",
            "session,10,packets,src",
            "host,10,packets,left",
            "host,10,packets,src,x",
        ] {
            assert!(Tag::parse(bad).is_err(), "{bad}");
        }
    }
}
