"""What a session saves: conversations checkpointed, sessions closed, insights extracted."""
