# liquid's tasks. `just --list` shows them. Every recipe is also a plain command in README.

# The whole test suite, as CI runs it (fmt check, clippy -D warnings, every test).
test:
    bash scripts/test

# Formatting check and clippy with warnings as errors.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets --locked -- -D warnings

# The main job on a bundled model (pass other arguments to choose another).
run *ARGS='solve models/paper-fig1.yaml':
    cargo run --release --locked -- {{ARGS}}

# The engine benchmarks (criterion), on the bundled models and generated traffics.
bench:
    cargo bench -p liquid-benchmarks --locked

# SAT encoding sizes, solve times and proof sizes per model and encoding choice.
sat-table:
    cargo run --release --locked -p liquid-benchmarks --example sat_encodings

# Certified optima before/after the tabu start, hard colouring cores (models/hard/), proof
# sizes and checking times, an external checker (`rate`) when installed; writes
# benchmarks/results/sat-proofs.md.
sat-proofs *ARGS:
    bash scripts/sat-proofs {{ARGS}}

# liquid against OR-Tools CP-SAT, networkx DSatur and CaDiCaL (Python venv); writes
# benchmarks/results/peers.md. `just bench-peers --quick` for a few small instances.
bench-peers *ARGS:
    bash scripts/bench-peers {{ARGS}}
# Scale table: analyze, DSatur, native search and SAT encoding on fat-tree all-to-alls
# (16, 128, 1024 hosts), time and peak memory, into benchmarks/results/scale.md.
bench-scale LIMIT='60':
    bash scripts/bench-scale {{LIMIT}}

# The flow-level simulator's speed on many simultaneous messages (all-at-once all-to-allv
# on fat-tree:4,3 and 8,3), into benchmarks/results/sim.md; `just bench-sim --before BIN`
# also runs another liquid binary and compares.
bench-sim *ARGS:
    bash scripts/bench-sim {{ARGS}}

# How much liquid's prediction of fat-tree:8,3 all-to-allv runs moves when every link moves
# by 1e-9 (SimGrid's surf/precision), beside SMPI's figures; into
# benchmarks/results/alltoallv-sensitivity.md (no SimGrid needed).
bench-sensitivity *ARGS:
    bash scripts/bench-sensitivity {{ARGS}}

# Load time and peak memory of 002's multi-cluster all-to-alls (Table 1 systems), built
# directly and through the network form, into benchmarks/results/multi-cluster-load.md.
bench-mc-load *SYSTEMS:
    bash scripts/bench-mc-load {{SYSTEMS}}

# Time limits at every size: every engine on fat-tree all-to-alls (16, 128, 1024 hosts)
# with --time-limit LIMIT, wall time against LIMIT·1.1 + load time, into
# benchmarks/results/limits.md.
bench-limits LIMIT='10':
    bash scripts/bench-limits {{LIMIT}}

# The default engine of `liquid solve` measured against the others, into
# benchmarks/results/default-solve.md.
bench-default LIMIT='60':
    bash scripts/bench-default {{LIMIT}}

# The guide (docs/src) as an HTML book in docs/book (mdBook, installed with cargo when missing).
book:
    command -v mdbook >/dev/null || cargo install mdbook --locked
    mdbook build docs
