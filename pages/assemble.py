import streamlit as st

st.title("Assemble")
st.info("This page is being built.")
