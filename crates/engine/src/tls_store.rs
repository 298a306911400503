//! The `tls-store` output at run time. Setup: its directory is made once and shared by
//! the workers. Per flow: once a `tls_store` rule matched a to-client packet (Suricata
//! asks for the chain of the side whose packet matched; Osprey's TLS parser keeps the
//! server's chain only, so a to-server match stores nothing, as Suricata on a session
//! without client certificates), the server's chain is written on the first packet
//! after which Suricata's TLS "handshake done" flag is set (the certificate buffers
//! became inspectable: [`app::TlsState::certs_inspectable`]), or on the matching
//! packet itself when that was before, or at flow end if the flow ends first; once per
//! flow, only when the chain has certificates.

use crate::config::EngineConfig;
use crate::flows::FlowExt;
use output::tls_store::{CertCounts, CertFacts};
use output::{EventMeta, TlsStore};
use std::sync::Arc;

/// Sets the `tls-store` output of `engine` up from its `outputs`. An error (the
/// directory cannot be made) is fatal; a relative directory in a run that writes no
/// logs is a notice.
pub(crate) fn setup(engine: &mut EngineConfig, notices: &mut Vec<String>) -> Result<(), String> {
    let Some(ts) = engine.outputs.tls_store.clone() else {
        return Ok(());
    };
    let Some(dir) = ts.path(engine.log_dir.as_deref()) else {
        notices.push(format!(
            "tls-store: {} is relative and this run writes no logs: no certificate stored",
            ts.dir.display()
        ));
        return Ok(());
    };
    let store = TlsStore::create(&dir)
        .map_err(|e| format!("tls-store: cannot create {}: {e}", dir.display()))?;
    engine.tls_store = Some(Arc::new(store));
    Ok(())
}

/// One worker's use of the output.
#[derive(Debug)]
pub(crate) struct CertLog {
    store: Arc<TlsStore>,
    counts: CertCounts,
}

impl CertLog {
    /// The worker's writer, when the output is on.
    pub(crate) fn new(config: &EngineConfig) -> Option<Self> {
        config.tls_store.clone().map(|store| CertLog {
            store,
            counts: CertCounts::default(),
        })
    }

    /// Writes the chain of the flow of `ext` if it is asked for and ready (`at_end`:
    /// the flow ended); `meta`: the packet's header, client → server.
    pub(crate) fn step(
        &self,
        ext: &mut FlowExt,
        at_end: bool,
        meta: &mut dyn FnMut() -> EventMeta,
    ) {
        if ext.tls_stored || !ext.detect.tls_store_requested(app::Direction::ToClient) {
            return;
        }
        let Some(tls) = ext.app.as_ref().and_then(|a| a.tls()) else {
            return;
        };
        if !(at_end || tls.certs_inspectable()) || tls.cert_chain_len() == 0 {
            return;
        }
        ext.tls_stored = true;
        let facts = CertFacts {
            subject: tls.cert_subject(),
            issuer: tls.cert_issuer(),
            fingerprint: tls.cert_info().map(|c| c.fingerprint.as_str()),
        };
        match self.store.write(&meta(), facts, tls.certs()) {
            Ok(_) => self.counts.stored(),
            Err(e) => {
                // Counted (`osprey.tls_store.fs_errors`); the first one is logged.
                if self.counts.list()[1].1 == 0 {
                    tracing::warn!(
                        "tls-store: cannot write in {}: {e}",
                        self.store.dir().display()
                    );
                }
                self.counts.error();
            }
        }
    }

    /// The worker's counters.
    pub(crate) fn counters(&self) -> [(&'static str, u64); 2] {
        self.counts.list()
    }
}
