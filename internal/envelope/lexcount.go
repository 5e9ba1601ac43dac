package envelope

// lexed marks one read of a reply by the door.
func lexed() {}
