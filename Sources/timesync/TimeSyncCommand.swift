print("timesync")
