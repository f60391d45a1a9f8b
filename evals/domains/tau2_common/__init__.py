"""Shared loading for τ²-bench domains (task data © Sierra Research, MIT licence: see NOTICE
and `data/LICENSE`). The data ships in `data/` and is read at run time; `TAU2_DATA_DIR`
points at another copy. The tools are our own implementation."""
