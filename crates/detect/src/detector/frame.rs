//! Inspection of the flow's application-layer frames (`frame` rules, `crate::frames`):
//! on a packet of one direction, every frame of that direction the parser recorded
//! since the last such packet, each rule once per matching frame.

use super::Detector;
use crate::input::{FlowInfo, FrameHit, Input, MatchedOn};
use crate::state::{FlowDetect, Scratch};

impl Detector {
    /// Whether a loaded rule inspects frames (the app layer then records them).
    pub fn uses_frames(&self) -> bool {
        !self.frame_sigs.is_empty()
    }

    /// The frame types the loaded rules inspect (the app layer records only those,
    /// which numbers them as Suricata does).
    pub fn frame_types(&self) -> app::frames::FrameSet {
        let mut set = app::frames::FrameSet::EMPTY;
        for &si in &self.frame_sigs {
            if let Some(fp) = self.sigs[si as usize].frames.first() {
                set.insert(fp.ty);
            }
        }
        set
    }

    /// Runs the frame rules over the frames of the packet's direction.
    pub(super) fn inspect_frames(
        &self,
        scratch: &mut Scratch,
        fd: &mut FlowDetect,
        input: &Input<'_>,
        fi: FlowInfo,
        af: &app::AppFlow,
    ) {
        let Some(frames) = af.frames() else { return };
        let dir = if fi.to_server {
            app::Direction::ToServer
        } else {
            app::Direction::ToClient
        };
        if !frames.has_pending(dir) {
            return;
        }
        let datagram = input.packet.proto == wire::ip_proto::UDP;
        for (frame, bytes) in frames.pending_frames(dir) {
            let on = MatchedOn::Frame(FrameHit {
                to_server: fi.to_server,
                id: frame.id,
                datagram,
            });
            for &si in &self.frame_sigs {
                let s = &self.sigs[si as usize];
                let Some(fp) = s.frames.first().filter(|f| f.ty == frame.ty) else {
                    continue;
                };
                if !self.pre_checks(s, fd, input, &mut scratch.ends) {
                    continue;
                }
                scratch.stats.rules_evaluated += 1;
                scratch.vars.captured.clear();
                let hit = if fp.transforms.is_empty() {
                    fp.prog.matches(bytes, &mut scratch.vars)
                } else {
                    let (xbuf, xtmp) = (&mut scratch.xbuf, &mut scratch.xtmp);
                    crate::transform::apply(&fp.transforms, bytes, xbuf, xtmp);
                    fp.prog.matches(&scratch.xbuf, &mut scratch.vars)
                };
                if hit {
                    // One alert per matching frame: several frames of a packet alert
                    // several times (Suricata's frame alerts are per frame).
                    self.matched(si, s, on, scratch, fd, input.packet);
                }
            }
        }
        frames.inspected(dir);
    }
}
