//! Turning the `file-store` output on for a run: the store's directory is made (with
//! its subdirectories) once, shared by the workers, and the app layer is told to keep
//! file contents when a file may be stored (`force-filestore`, or a `filestore` rule
//! loaded: without either nothing is stored, as in Suricata) and to compute the
//! digests the store names files by.

use crate::config::EngineConfig;
use std::sync::Arc;

/// Sets the file store of `engine` up from its `outputs` (`rules_store`: a loaded rule
/// uses `filestore`). An error (the directory cannot be made) is fatal, as in
/// Suricata; a relative `dir` in a run that writes no logs is a notice.
pub(crate) fn setup(
    engine: &mut EngineConfig,
    rules_store: bool,
    notices: &mut Vec<String>,
) -> Result<(), String> {
    let Some(fs) = engine.outputs.file_store.clone() else {
        return Ok(());
    };
    let Some(dir) = fs.path(engine.log_dir.as_deref()) else {
        notices.push(format!(
            "file-store: {} is relative and this run writes no logs: no file stored",
            fs.dir.display()
        ));
        return Ok(());
    };
    let store = output::FileStore::create(&dir, fs.write_fileinfo)
        .map_err(|e| format!("file-store: cannot create {}: {e}", dir.display()))?;
    let files = &mut engine.app.files;
    files.sha256 = true;
    files.md5 |= fs.md5;
    files.sha1 |= fs.sha1;
    files.store = fs.force || rules_store;
    files.force_store = fs.force;
    engine.file_store = Some(Arc::new(store));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outputs::FileStoreOutput;

    #[test]
    fn the_store_is_made_and_the_app_layer_told() {
        let dir = std::env::temp_dir().join(format!("osprey-fs-setup-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut engine = EngineConfig {
            log_dir: Some(dir.clone()),
            ..EngineConfig::default()
        };
        let mut notices = Vec::new();
        setup(&mut engine, true, &mut notices).unwrap();
        assert!(engine.file_store.is_none() && !engine.app.files.store);
        engine.outputs.file_store = Some(FileStoreOutput {
            dir: "fs".into(),
            write_fileinfo: true,
            force: false,
            md5: true,
            sha1: false,
        });
        setup(&mut engine, false, &mut notices).unwrap();
        // No rule stores and nothing is forced: nothing is kept.
        assert!(!engine.app.files.store && engine.app.files.sha256 && engine.app.files.md5);
        setup(&mut engine, true, &mut notices).unwrap();
        assert!(engine.app.files.store && !engine.app.files.force_store);
        assert!(dir.join("fs/tmp").is_dir() && dir.join("fs/00").is_dir());
        assert!(dir.join("fs/ff").is_dir());
        engine.log_dir = None;
        setup(&mut engine, true, &mut notices).unwrap();
        assert_eq!(notices.len(), 1, "{notices:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
