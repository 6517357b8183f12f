"""Developer tools that drive the window: screenshots and the GUI frame-rate bench."""
