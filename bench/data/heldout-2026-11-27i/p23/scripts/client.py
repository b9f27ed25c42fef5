print("client up")
