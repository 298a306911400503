//! The `file-store` output, version 2 (Suricata 7's only one): the files a
//! `filestore` rule asked for (or every file with `force-filestore`) are written under
//! `<dir>/<first two hex digits>/<sha256>`, named by the SHA-256 of their content; with
//! `write-fileinfo` each occurrence also gets a sidecar
//! `<sha256>.<packet seconds>.<file_id>.json` holding its `fileinfo` record. As
//! Suricata: the 256 subdirectories and `tmp/` are made at start; a file is written to
//! `tmp/file.<file_id>` as its bytes arrive (each write opens and closes it: what
//! Suricata does with `max-open-files: 0`) and renamed once it ended; a file whose
//! content is already stored is not written twice (the stored copy's time is
//! refreshed). `file_id` counts the files the store started, from 1, across workers.
//!
//! The app layer keeps each file's bytes ([`app::files::store::StoreState`]) until this
//! output drains them, after detection had its say on the packet. A file that cannot
//! be stored whole (a hole, too many bytes undrained) or a failed write is counted,
//! never dropped silently.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::eve::EventMeta;
use app::{AppFlow, File, FileState, Transaction};

/// The shared part of the store: its directory, options and `file_id` counter.
#[derive(Debug)]
pub struct FileStore {
    dir: PathBuf,
    write_fileinfo: bool,
    next_id: AtomicU64,
}

impl FileStore {
    /// A store writing under `dir` (made with its `00`..`ff` and `tmp` subdirectories);
    /// `write_fileinfo`: write the JSON sidecars.
    pub fn create(dir: &Path, write_fileinfo: bool) -> std::io::Result<Self> {
        fs::create_dir_all(dir.join("tmp"))?;
        for i in 0..=255u8 {
            fs::create_dir_all(dir.join(format!("{i:02x}")))?;
        }
        Ok(FileStore {
            dir: dir.to_path_buf(),
            write_fileinfo,
            next_id: AtomicU64::new(1),
        })
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn tmp_path(&self, id: u64) -> PathBuf {
        self.dir.join("tmp").join(format!("file.{id}"))
    }
}

/// What one worker's store did (`osprey.file_store.*` counters).
#[derive(Debug, Default)]
pub(crate) struct StoreCounts {
    stored: std::cell::Cell<u64>,
    lost: std::cell::Cell<u64>,
    errors: std::cell::Cell<u64>,
}

impl StoreCounts {
    fn bump(c: &std::cell::Cell<u64>) {
        c.set(c.get() + 1);
    }

    /// The counters, named.
    pub(crate) fn list(&self) -> [(&'static str, u64); 3] {
        [
            ("osprey.file_store.stored", self.stored.get()),
            ("osprey.file_store.not_whole", self.lost.get()),
            ("osprey.file_store.fs_errors", self.errors.get()),
        ]
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// One worker's use of a [`FileStore`].
#[derive(Debug)]
pub(crate) struct StoreWriter {
    pub(crate) store: std::sync::Arc<FileStore>,
    pub(crate) counts: StoreCounts,
}

impl StoreWriter {
    /// Writes out what the files of `app` to be stored received, and stores those that
    /// ended once their transaction is ready to log (so that their `fileinfo` record,
    /// written next, says `stored`); drops the kept bytes of files not to be stored.
    /// `at_end`: the flow ended; `dir`: the packet's direction, whose files only are
    /// stored (as their `fileinfo` records are written).
    pub(crate) fn step(
        &self,
        app: &AppFlow,
        at_end: bool,
        dir: Option<app::Direction>,
        meta: &mut dyn FnMut() -> EventMeta,
    ) {
        let Some(proto) = app.state().protocol() else {
            return;
        };
        proto.each_tx(&mut |tx| {
            let Some(files) = tx.files() else {
                return;
            };
            let ready = tx.log_ready(at_end);
            for f in files.iter() {
                let ended = ready
                    && (f.state() != FileState::Open || at_end)
                    && dir.is_none_or(|d| d == f.direction());
                self.file(app, tx, f, ended, at_end, meta);
            }
        });
    }

    fn file(
        &self,
        app: &AppFlow,
        tx: &dyn Transaction,
        f: &File,
        ended: bool,
        at_end: bool,
        meta: &mut dyn FnMut() -> EventMeta,
    ) {
        let st = f.store_state();
        if st.stored() {
            return;
        }
        if st.take_lost() {
            if f.store_requested() {
                StoreCounts::bump(&self.counts.lost);
            }
            if let Some(id) = st.id() {
                let _ = fs::remove_file(self.store.tmp_path(id));
            }
            return;
        }
        if !st.keeping() {
            return;
        }
        if !f.store_requested() {
            if ended {
                st.release();
            }
            return;
        }
        let id = st.id().unwrap_or_else(|| {
            let id = self.store.next_id.fetch_add(1, Ordering::Relaxed);
            st.set_id(id);
            id
        });
        let data = st.take_pending();
        let tmp = self.store.tmp_path(id);
        let wrote = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&tmp)
            .and_then(|mut w| w.write_all(&data));
        if let Err(e) = wrote {
            self.fail(&tmp, st, &e);
            return;
        }
        if ended {
            self.finish(app, tx, f, id, at_end, meta);
        }
    }

    fn fail(&self, tmp: &Path, st: &app::files::store::StoreState, e: &dyn std::fmt::Display) {
        if self.counts.errors.get() == 0 {
            tracing::warn!("file-store: {}: {e}", tmp.display());
        }
        StoreCounts::bump(&self.counts.errors);
        st.release();
        let _ = fs::remove_file(tmp);
    }

    /// Moves the ended file `f` (written to `tmp/file.<id>`) to its final name and
    /// writes its sidecar.
    fn finish(
        &self,
        app: &AppFlow,
        tx: &dyn Transaction,
        f: &File,
        id: u64,
        at_end: bool,
        meta: &mut dyn FnMut() -> EventMeta,
    ) {
        let st = f.store_state();
        let tmp = self.store.tmp_path(id);
        let Some(sha) = f.digests().sha256 else {
            // Still open when its flow ended: its digest was never computed.
            StoreCounts::bump(&self.counts.lost);
            st.release();
            let _ = fs::remove_file(&tmp);
            return;
        };
        let name = hex(&sha);
        let sub = self.store.dir.join(&name[..2]);
        let path = sub.join(&name);
        let done = if path.exists() {
            // Already stored: refresh its time, as Suricata does.
            let _ = fs::remove_file(&tmp);
            fs::File::options()
                .append(true)
                .open(&path)
                .and_then(|h| h.set_modified(std::time::SystemTime::now()))
        } else {
            fs::rename(&tmp, &path)
        };
        if let Err(e) = done {
            self.fail(&tmp, st, &e);
            return;
        }
        st.set_stored();
        StoreCounts::bump(&self.counts.stored);
        if !self.store.write_fileinfo {
            return;
        }
        let m = meta();
        let ts = m.ts_secs;
        let rec = crate::eve::fileinfo::record(
            tx,
            f,
            at_end,
            app::registry::event_type(app.app_proto()),
            app.app_proto().name(),
            &m,
        );
        let side = sub.join(format!("{name}.{ts}.{id}.json"));
        // As Suricata: the record alone, without a line end.
        if let Err(e) = fs::write(&side, rec.to_string()) {
            StoreCounts::bump(&self.counts.errors);
            tracing::warn!("file-store: {}: {e}", side.display());
        }
    }
}
