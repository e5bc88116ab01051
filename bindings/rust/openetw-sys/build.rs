//! Finds libopenetw: OPENETW_LIB_DIR if set, else the `pkg-config` program
//! (PKG_CONFIG_PATH may point at a Meson build's meson-uninstalled folder).
//! Dependents get the folder as DEP_OPENETW_LIB_DIR.
use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=OPENETW_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG");

    let dirs = match env::var("OPENETW_LIB_DIR") {
        Ok(dir) if !dir.is_empty() => vec![dir],
        _ => pkg_config_dirs(),
    };
    for dir in &dirs {
        println!("cargo:rustc-link-search=native={dir}");
    }
    println!("cargo:rustc-link-lib=dylib=openetw");
    if let Some(dir) = dirs.first() {
        println!("cargo:lib_dir={dir}");
    }
}

fn pkg_config_dirs() -> Vec<String> {
    let program = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into());
    let output = Command::new(&program).args(["--libs-only-L", "openetw"]).output();
    match output {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .filter_map(|flag| flag.strip_prefix("-L").map(str::to_owned))
            .collect(),
        Ok(out) => panic!(
            "`{program} --libs-only-L openetw` failed: {}\n\
             Set OPENETW_LIB_DIR to the folder holding libopenetw, or PKG_CONFIG_PATH to the one \
             holding openetw.pc (a Meson build dir has meson-uninstalled/).",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => panic!("cannot run {program} ({e}); set OPENETW_LIB_DIR to the folder holding libopenetw"),
    }
}
