//! The `frame` sticky buffer (Suricata 7's application-layer frames): a rule's program
//! over the bytes of each frame of one type the protocol's parser recorded
//! (`app::frames`), compiled here and run by `detector/frame.rs` on the packets of the
//! frame's direction once the parser recorded it.
//!
//! A matching frame alerts once (several frames of one packet alert several times, as
//! Suricata does). Rules naming a frame type Osprey does not record, or two frame
//! types, are refused as unsupported.

use rules::frames::FrameType;
use rules::BufferMatches;

use crate::program::Program;
use crate::sig::{unsupported, Refusal, Sig};
use crate::transform::Xform;

/// A program over the frames of one type.
#[derive(Debug, Clone)]
pub(crate) struct FrameProg {
    pub ty: FrameType,
    pub transforms: Vec<Xform>,
    pub prog: Program,
}

/// Compiles the frame buffer `bm` of type `ty` into `sig` (its program is `prog`).
pub(crate) fn add(
    sig: &mut Sig,
    ty: FrameType,
    bm: &BufferMatches,
    prog: Program,
) -> Result<(), Refusal> {
    if !app::frames::recorded(ty) {
        return Err(unsupported(
            "frame",
            format!("frame {}: Osprey does not record it", ty.name()),
        ));
    }
    if !sig.frames.is_empty() {
        return Err(unsupported("frame", "two frame types in one rule"));
    }
    let Some((p, _)) = app::registry::rule_name(ty.proto().name()) else {
        return Err(unsupported(
            "frame",
            format!("frame {}: protocol not parsed", ty.name()),
        ));
    };
    match sig.app_proto {
        Some(a) if !crate::sig::proto_matches(a, None, p.proto) => {
            return Err(unsupported("frame", "frame and buffers of two protocols"))
        }
        _ => sig.app_proto = Some(p.proto),
    }
    let transforms = bm
        .transforms
        .iter()
        .map(crate::transform::compile)
        .collect::<Result<Vec<_>, _>>()?;
    sig.frames.push(FrameProg {
        ty,
        transforms,
        prog,
    });
    Ok(())
}
