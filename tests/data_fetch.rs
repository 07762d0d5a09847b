//! `pcsearch data fetch` against an HTTP server on the loopback address serving archives and files
//! this test builds, and against the recorded data set itself.

mod common;

use pcsearch::datadir::fetch::{self, sha256_hex, Origin, Outcome};
use pcsearch::datadir::manifest::Manifest;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::thread::JoinHandle;

/// A small KTT CSV with `n` configurations, the fastest at `TILE=n`.
fn ktt_csv(n: usize) -> Vec<u8> {
    let mut s = String::from("Kernel name,Computation duration (us),Global size,Local size,TILE\n");
    for i in 1..=n {
        s += &format!("k,{},1024,64,{i}\n", 100.0 / i as f64);
    }
    s.into_bytes()
}

fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    for (name, bytes) in files {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
    out.into_inner()
}

fn tar_gz_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    for (name, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, name, *bytes).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap()
}

/// Serves `routes` (path → body, 404 otherwise) on 127.0.0.1 until the returned guard is dropped.
struct Server {
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
    port: u16,
}

impl Server {
    fn start(routes: HashMap<String, Vec<u8>>) -> Server {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
        let port = server.server_addr().to_ip().unwrap().port();
        let s = Arc::clone(&server);
        let thread = std::thread::spawn(move || {
            for request in s.incoming_requests() {
                let response = match routes.get(request.url()) {
                    Some(body) => tiny_http::Response::from_data(body.clone()),
                    None => {
                        tiny_http::Response::from_data(b"not found".to_vec()).with_status_code(404)
                    }
                };
                let _ = request.respond(response);
            }
        });
        Server {
            server,
            thread: Some(thread),
            port,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A manifest of two files of one source at `url`, the second with a wrong checksum when `lie`.
fn manifest(url: &str, kind: &str, lie: bool) -> Manifest {
    let a = sha256_hex(&ktt_csv(4));
    let b = if lie {
        "0".repeat(64)
    } else {
        sha256_hex(&ktt_csv(6))
    };
    Manifest::parse(
        &format!(
            r#"
[[source]]
name = "demo"
description = "test data"
reference = "this test"
url = "{url}"
kind = "{kind}"

[[file]]
path = "ktt-paper/demo/680-demo_output.csv"
source = "demo"
sha256 = "{a}"
configurations = 4

[[file]]
path = "ktt-paper/demo/750-demo_output.csv"
source = "demo"
sha256 = "{b}"
configurations = 6
"#
        ),
        Path::new("test.toml"),
    )
    .unwrap()
}

fn outcomes(report: &fetch::Report) -> Vec<&Outcome> {
    report.files.iter().map(|(_, o)| o).collect()
}

#[test]
fn a_zip_archive_is_downloaded_verified_and_not_downloaded_again() {
    let four = ktt_csv(4);
    let six = ktt_csv(6);
    let extra = ktt_csv(3);
    let archive = zip_of(&[
        ("data/demo/680-demo_output.csv", &four),
        ("data/demo/750-demo_output.csv", &six),
        ("data/conv/1070-conv_output.csv", &extra),
        ("data/README.txt", b"hello"),
    ]);
    let server = Server::start(HashMap::from([("/data.zip".to_string(), archive)]));
    let m = manifest(&server.url("/data.zip"), "archive", false);
    let dir = tempfile::tempdir().unwrap();
    let report = fetch::fetch(&m, dir.path(), Origin::Network).unwrap();
    assert!(report.missing().is_empty(), "{report:?}");
    for o in outcomes(&report) {
        assert!(matches!(o, Outcome::Installed(v) if v.checksum), "{o:?}");
    }
    assert_eq!(
        std::fs::read(dir.path().join("ktt-paper/demo/750-demo_output.csv")).unwrap(),
        six
    );
    // An unlisted output file is installed after a format check; other files are ignored.
    assert_eq!(report.extra.len(), 1);
    assert_eq!(report.extra[0].0, "ktt-paper/conv/1070-conv_output.csv");
    assert!(
        matches!(&report.extra[0].1, Outcome::Installed(v) if v.configurations == 3 && !v.checksum)
    );
    // Everything is there now: no download happens (the server is gone).
    drop(server);
    let again = fetch::fetch(&m, dir.path(), Origin::Network).unwrap();
    assert!(outcomes(&again)
        .iter()
        .all(|o| matches!(o, Outcome::Present(v) if v.checksum)));
}

#[test]
fn a_wrong_checksum_is_rejected_and_nothing_unverified_is_left() {
    let four = ktt_csv(4);
    let six = ktt_csv(6);
    let archive = tar_gz_of(&[
        ("680-demo_output.csv", &four),
        ("750-demo_output.csv", &six),
    ]);
    let server = Server::start(HashMap::from([("/data.tar.gz".to_string(), archive)]));
    let m = manifest(&server.url("/data.tar.gz"), "archive", true);
    let dir = tempfile::tempdir().unwrap();
    let report = fetch::fetch(&m, dir.path(), Origin::Network).unwrap();
    assert!(matches!(outcomes(&report)[0], Outcome::Installed(_)));
    match outcomes(&report)[1] {
        Outcome::Rejected(why) => assert!(why.contains("checksum mismatch"), "{why}"),
        o => panic!("{o:?}"),
    }
    assert_eq!(report.missing(), ["ktt-paper/demo/750-demo_output.csv"]);
    let left: Vec<_> = std::fs::read_dir(dir.path().join("ktt-paper/demo"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left, ["680-demo_output.csv"]);
}

#[test]
fn files_published_one_by_one_and_a_missing_one_is_named() {
    let four = ktt_csv(4);
    let server = Server::start(HashMap::from([(
        "/pub/680-demo_output.csv".to_string(),
        four,
    )]));
    let m = manifest(&server.url("/pub/"), "files", false);
    let dir = tempfile::tempdir().unwrap();
    let report = fetch::fetch(&m, dir.path(), Origin::Network).unwrap();
    assert!(matches!(outcomes(&report)[0], Outcome::Installed(_)));
    match outcomes(&report)[1] {
        Outcome::Missing(why) => assert!(
            why.contains("750-demo_output.csv") && why.contains("404"),
            "{why}"
        ),
        o => panic!("{o:?}"),
    }
}

#[test]
fn a_file_that_no_reader_accepts_is_rejected_even_without_a_checksum() {
    let broken = b"Kernel name,Computation duration (us),TILE\nk,abc,1\n".to_vec();
    let archive = zip_of(&[("680-demo_output.csv", &broken)]);
    let server = Server::start(HashMap::from([("/d.zip".to_string(), archive)]));
    let mut m = manifest(&server.url("/d.zip"), "archive", false);
    m.files.truncate(1);
    m.files[0].sha256 = None;
    let dir = tempfile::tempdir().unwrap();
    let report = fetch::fetch(&m, dir.path(), Origin::Network).unwrap();
    match outcomes(&report)[0] {
        Outcome::Rejected(why) => assert!(why.contains("`abc` is not a number"), "{why}"),
        o => panic!("{o:?}"),
    }
    assert!(!dir
        .path()
        .join("ktt-paper/demo/680-demo_output.csv")
        .exists());
}

#[test]
fn without_network_the_command_says_what_is_missing_and_how_to_get_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pcsearch"))
        .args([
            "data",
            "fetch",
            "--data-dir",
            dir.path().to_str().unwrap(),
            // Port 1 on the loopback address: the connection is refused at once.
            "--url",
            "ktt-paper=http://127.0.0.1:1/data.zip",
            "--url",
            "ktt2=http://127.0.0.1:1/coulomb.json",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: 16 of 16 files of the data set are missing")
            && stderr.contains("ktt-paper/coulomb/680-coulomb_output.csv")
            && stderr.contains("doi:10.1016/j.dib.2021.107631")
            && stderr.contains("--from"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.lines().filter(|l| l.contains("MISSING")).count(),
        2,
        "one line per reason: {stdout}"
    );
    assert!(
        stdout.contains("15 files MISSING: could not download http://127.0.0.1:1/data.zip")
            && stdout.contains("ktt2/coulomb-2080ti.json: MISSING: could not download"),
        "{stdout}"
    );
}

#[test]
fn the_recorded_data_set_matches_the_published_checksums_and_counts() {
    if common::skip_without_data() {
        return;
    }
    let data = common::data_dir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let m = Manifest::published().unwrap();
    let report = fetch::fetch(&m, target.path(), Origin::Local(&data)).unwrap();
    assert!(report.missing().is_empty(), "{report:?}");
    assert_eq!(report.files.len(), 16);
    assert!(outcomes(&report)
        .iter()
        .all(|o| matches!(o, Outcome::Installed(v) if v.checksum)));
}
