print("contactbox")
