//! Which protocol's buffer a rule's sticky buffer reads when several protocols declare
//! one by the same name (`ja3.hash`, `ja3.string`, `ja3s.*`: TLS and QUIC, as Suricata
//! registers them for both): the one of the rule's protocol (its header's, else the
//! protocol its earlier buffers chose), else the first registered; `file.data` as
//! [`crate::files::file_buffer`] resolves it.

use app::{AppProto, BufferId};

/// The buffer `b` (as found by name) stands for in a rule whose header names
/// `header`, after buffers of protocol `so_far`.
pub(crate) fn resolve(b: BufferId, header: Option<AppProto>, so_far: Option<AppProto>) -> BufferId {
    if !b.def().file {
        if let Some(own) = header.or(so_far).and_then(|p| BufferId::of(p, b.name())) {
            return own;
        }
    }
    crate::files::file_buffer(b, header)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ja3_follows_the_rule_protocol() {
        let tls = BufferId::by_name("ja3.hash").unwrap();
        assert_eq!(tls.proto(), AppProto::Tls);
        assert_eq!(
            resolve(tls, Some(AppProto::Quic), None).proto(),
            AppProto::Quic
        );
        assert_eq!(
            resolve(tls, None, Some(AppProto::Quic)).proto(),
            AppProto::Quic
        );
        assert_eq!(resolve(tls, Some(AppProto::Tls), None), tls);
        assert_eq!(resolve(tls, None, None), tls);
        // A protocol without such a buffer keeps the first one (the rule is refused
        // later as mixing protocols).
        assert_eq!(resolve(tls, Some(AppProto::Dns), None), tls);
        let fd = BufferId::by_name("file.data").unwrap();
        assert_eq!(
            resolve(fd, Some(AppProto::Smtp), None),
            BufferId::file_of(AppProto::Smtp).unwrap()
        );
    }
}
