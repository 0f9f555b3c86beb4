/// A namespace for types that serve as publishers.
public enum Publishers {}
