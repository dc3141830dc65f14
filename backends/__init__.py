"""tileforth.backends"""
