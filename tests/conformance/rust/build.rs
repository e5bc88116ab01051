//! Builds the name -> constant table the scenario's ETW_* names resolve through:
//! every constant of the committed bindgen output, referenced by path so the
//! compiler checks each one against the binding.
use std::{env, fs, path::Path};

fn main() {
    let bindings = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../bindings/rust/openetw-sys/src/bindings.rs");
    println!("cargo:rerun-if-changed={}", bindings.display());
    let text = fs::read_to_string(&bindings).expect("read openetw-sys/src/bindings.rs");
    let mut table = String::from("&[\n");
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("pub const ") else { continue };
        let Some((name, ty)) = rest.split_once(':') else { continue };
        if ty.trim_start().starts_with(['u', 'i']) {
            table += &format!("    (\"{name}\", openetw::sys::{name} as u64),\n");
        }
    }
    table += "]\n";
    fs::write(Path::new(&env::var("OUT_DIR").unwrap()).join("constants.rs"), table).unwrap();
}
