//! Lets this crate's own tests find libopenetw at run time when it
//! lives outside the system paths (a Meson build dir). Dependents' binaries get
//! no such path baked in.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_OPENETW_LIB_DIR");
    if let Ok(dir) = std::env::var("DEP_OPENETW_LIB_DIR") {
        // TraceLogging tests run the build's etwdump (beside the library in a Meson build).
        println!("cargo:rustc-env=OPENETW_TEST_LIB_DIR={dir}");
        if !cfg!(windows) {
            println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{dir}");
        }
    }
}
