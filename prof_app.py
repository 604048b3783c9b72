import cProfile, os, pstats, time
_profile = cProfile.Profile()
_t = time.perf_counter()
_profile.enable()
exec(compile(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "app.py")).read(), "app.py", "exec"))
_profile.disable()
_elapsed = time.perf_counter() - _t
if os.environ.get("PROFILE_OUT"):
    with open(os.environ["PROFILE_OUT"], "a") as _f:
        _f.write(f"\n##### run {_elapsed:.3f}s\n")
        pstats.Stats(_profile, stream=_f).sort_stats("tottime").print_stats(25)
