"""What the server keeps of itself: the messages received, sealed failures, heartbeats."""
