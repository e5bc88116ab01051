"""The runner behind bench/run, one module per concern: building the
programs (build), the LTTng session daemon (peers), the experiments a mode
runs (experiments) and the consumer files they read (consumer_files),
running them interleaved (scheduling), reducing the samples to figures
(statistics) and goals (goals), printing and writing them (report), and the
command line that ties these together (cli)."""
