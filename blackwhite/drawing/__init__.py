"""Drawings of a seat's view made from the view dict alone, shared by the terminal and
the Discord bridge.  Nothing here imports the engine, the games or the bots: the bridge
is a client of the server's API and draws the views it is sent."""
