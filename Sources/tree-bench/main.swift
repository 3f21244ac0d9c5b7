print("tree-bench: not built yet")
