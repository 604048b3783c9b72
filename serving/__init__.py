"""What a Streamlit process needs to serve a class, apart from what any page draws.

models.py (the model registry, failed-load memory, the PyTorch reference), sentences.py (the per-sentence cache
in bytes), shared.py (results every visitor shares, and starting their warm-up), warmup.py (the warm-up's worker
process), diskcache.py (those results on disk across restarts), memory.py (the byte-budget cache, malloc
trimming, long inputs taking turns), startup.py (the heavy imports, first and once). It imports lessons/ and
attention/ only, never ui/ or app_pages/, and draws nothing: of Streamlit it uses only st.cache_resource (models.py).
"""
