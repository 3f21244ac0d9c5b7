print("tree-server: not built yet")
