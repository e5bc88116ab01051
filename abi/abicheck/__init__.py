"""The checks of the OpenETW ABI gate and the generators of abi/update.sh,
one module per subcommand of abi/abi_check.py (the command line), sharing
the parsers of the public headers (header_parser) and of the linker version
script (version_script). Standard library only."""
