print("playground")
