"""How the i18n checks (check_catalog.py, check_korean.py) end: report() prints each failure as
"FAIL …", then the summary line "NAME: FACTS, N failures", and gives the exit status."""


def report(name, facts, failures):
    for f in failures:
        print("FAIL", f)
    print(f"{name}: {facts}, {len(failures)} failures")
    return 1 if failures else 0
