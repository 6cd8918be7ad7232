"""Time: clocks and their texts, time-outs, outage credit, vacations, the timers that run them, and the daily digest."""
