print("server up")
