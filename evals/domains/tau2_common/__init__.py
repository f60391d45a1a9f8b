"""Shared loading for τ²-bench domains (task data © Sierra, MIT licence: see NOTICE and
`<TAU2_DATA_DIR>/LICENSE`). The data is read at run time from `TAU2_DATA_DIR`, default
`../shared/tau2-data` next to the repository; the tools are our own implementation."""
