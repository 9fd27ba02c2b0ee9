import WireTally
print("wiretally: under construction")
