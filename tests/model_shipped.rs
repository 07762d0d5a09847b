//! The models shipped in `models/` are exactly what `pcsearch train` makes from the GTX 1070 files.

mod common;

use pcsearch::data::{self, ReadOptions};
use pcsearch::model::{CounterModel, TrainOptions};
use pcsearch::rules::Rules;
use std::path::{Path, PathBuf};

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(name)
}

#[test]
fn shipped_models_are_reproduced_by_training_with_the_default_options() {
    if common::skip_without_data() {
        return;
    }
    let rules = Rules::builtin().unwrap();
    let gpu = rules.devices.by_key("1070").unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (bench, tps) in [("coulomb", 8), ("mtran", 9)] {
        let path = common::replay_file(&format!("ktt-paper/{bench}/1070-{bench}_output.csv"));
        let dataset = data::load(Path::new(&path), &ReadOptions::default()).unwrap();
        let model = CounterModel::train(&dataset, &rules, &gpu, &TrainOptions::default()).unwrap();
        let fresh = dir.path().join("m.json");
        model.save(&fresh).unwrap();
        let name = format!("{bench}-1070.json");
        let text = std::fs::read_to_string(shipped(&name)).unwrap();
        assert!(
            text == std::fs::read_to_string(&fresh).unwrap(),
            "models/{name} is stale: retrain it as docs/models.md, \"Shipped models\", says"
        );
        assert!(
            text.len() < 1 << 20,
            "models/{name} is {} bytes",
            text.len()
        );

        let loaded = CounterModel::load(&shipped(&name)).unwrap();
        assert_eq!(loaded.parameters(), dataset.space.parameters());
        assert_eq!(loaded.parameters().len(), tps);
        loaded.check_space(&dataset.space).unwrap();
        // The point of shipping it: the spaces recorded on the other GPUs are predicted.
        for other in ["680", "750", "2080"] {
            let path =
                common::replay_file(&format!("ktt-paper/{bench}/{other}-{bench}_output.csv"));
            let space = data::load(Path::new(&path), &ReadOptions::default())
                .unwrap()
                .space;
            assert_eq!(loaded.predict(&space).unwrap().len(), space.len());
        }
    }
}
